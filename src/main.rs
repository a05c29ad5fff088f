fn main() {
    std::process::exit(poolshark::cli::main());
}
