fn main() {
    std::process::exit(poolshark::main());
}
