//! The catalogue of every field name the messages' trees can hold (DHCPv4, DHCPv6, ISC DHCP
//! failover, ASAP, ENRP and poolshark's own `poolshark.*`), so that a display filter or a `-T
//! fields` column naming anything else is refused before reading, as tshark refuses a name it
//! does not know ("... is neither a field nor a protocol name").
//!
//! It cannot drift from the decoders: [`crate::field::Field::new`], which every field builder
//! goes through, asserts (in builds with debug assertions: the tests, the fuzzers) that a name of
//! these protocols is listed here; `tests/it/field_catalogue.rs` checks that every name a shared
//! capture's messages hold is listed and that every listed name other than `poolshark.*` is one of
//! `tshark -G fields`. The lower layers have their own list, [`crate::dissect::layers::FIELDS`].

/// The protocols whose field names are catalogued here (a name `PROTO.…`).
pub(crate) const PROTOCOLS: [&str; 7] = [
    "asap",
    "enrp",
    "dhcp",
    "dhcpv4",
    "dhcpv6",
    "dhcpfo",
    "poolshark",
];

/// Every field name of the messages' trees, sorted (byte order) for the binary search.
pub const FIELDS: &[&str] = &[
    "asap.cause_code",
    "asap.cause_info",
    "asap.cause_length",
    "asap.cause_padding",
    "asap.cookie",
    "asap.dccp_transport_port",
    "asap.dccp_transport_reserved",
    "asap.dccp_transport_service_code",
    "asap.h_bit",
    "asap.hropt_items",
    "asap.ipv4_address",
    "asap.ipv6_address",
    "asap.message_flags",
    "asap.message_length",
    "asap.message_type",
    "asap.parameter_length",
    "asap.parameter_padding",
    "asap.parameter_type",
    "asap.parameter_value",
    "asap.pe_checksum",
    "asap.pe_identifier",
    "asap.pool_element_home_enrp_server_identifier",
    "asap.pool_element_pe_identifier",
    "asap.pool_element_registration_life",
    "asap.pool_handle_pool_handle",
    "asap.pool_member_selection_policy_degradation",
    "asap.pool_member_selection_policy_distance",
    "asap.pool_member_selection_policy_load",
    "asap.pool_member_selection_policy_load_dpf",
    "asap.pool_member_selection_policy_priority",
    "asap.pool_member_selection_policy_type",
    "asap.pool_member_selection_policy_value",
    "asap.pool_member_selection_policy_weight",
    "asap.pool_member_selection_policy_weight_dpf",
    "asap.r_bit",
    "asap.sctp_transport_port",
    "asap.server_identifier",
    "asap.tcp_transport_port",
    "asap.transport_use",
    "asap.udp_lite_transport_port",
    "asap.udp_lite_transport_reserved",
    "asap.udp_transport_port",
    "asap.udp_transport_reserved",
    "dhcp.boot_filename_overloaded_by_dhcp",
    "dhcp.client_id",
    "dhcp.client_id.duid_ll_hw_type",
    "dhcp.client_id.duid_llt_hw_type",
    "dhcp.client_id.duid_type",
    "dhcp.client_id.enterprise_num",
    "dhcp.client_id.iaid",
    "dhcp.client_id.link_layer_address",
    "dhcp.client_id.time",
    "dhcp.client_id.type",
    "dhcp.client_id.undef",
    "dhcp.cookie",
    "dhcp.file",
    "dhcp.flags",
    "dhcp.flags.bc",
    "dhcp.flags.reserved",
    "dhcp.fqdn.flags",
    "dhcp.fqdn.name",
    "dhcp.fqdn.rcode1",
    "dhcp.fqdn.rcode2",
    "dhcp.hops",
    "dhcp.hw.addr",
    "dhcp.hw.addr_padding",
    "dhcp.hw.len",
    "dhcp.hw.mac_addr",
    "dhcp.hw.type",
    "dhcp.id",
    "dhcp.ip.client",
    "dhcp.ip.relay",
    "dhcp.ip.server",
    "dhcp.ip.your",
    "dhcp.option.agent_information_option.agent_circuit_id",
    "dhcp.option.agent_information_option.agent_remote_id",
    "dhcp.option.agent_information_option.link_selection",
    "dhcp.option.agent_information_option.relay_agent_id",
    "dhcp.option.agent_information_option.server_id_override",
    "dhcp.option.agent_information_option.suboption",
    "dhcp.option.agent_information_option.subscriber_id",
    "dhcp.option.agent_information_option.value",
    "dhcp.option.all_subnets_are_local",
    "dhcp.option.arp_cache_timeout",
    "dhcp.option.associated_ip_option",
    "dhcp.option.boot_file_size",
    "dhcp.option.bootfile_name",
    "dhcp.option.broadcast_address",
    "dhcp.option.captive_portal",
    "dhcp.option.classless_static_route",
    "dhcp.option.client_last_transaction_time",
    "dhcp.option.default_finger_server",
    "dhcp.option.default_ip_ttl",
    "dhcp.option.default_irc_server",
    "dhcp.option.default_www_server",
    "dhcp.option.dhcp",
    "dhcp.option.dhcp_auto_configuration",
    "dhcp.option.dhcp_max_message_size",
    "dhcp.option.dhcp_server_id",
    "dhcp.option.domain_name",
    "dhcp.option.domain_name_server",
    "dhcp.option.end",
    "dhcp.option.ethernet_encapsulation",
    "dhcp.option.extension_path",
    "dhcp.option.forcerenew_nonce.algorithm",
    "dhcp.option.hostname",
    "dhcp.option.impress_server",
    "dhcp.option.interface_mtu",
    "dhcp.option.ip_address_lease_time",
    "dhcp.option.ip_forwarding",
    "dhcp.option.length",
    "dhcp.option.log_server",
    "dhcp.option.lpr_server",
    "dhcp.option.mask_supplier",
    "dhcp.option.max_datagram_reassembly_size",
    "dhcp.option.merit_dump_file",
    "dhcp.option.message",
    "dhcp.option.mobile_ip_home_agent",
    "dhcp.option.mudurl",
    "dhcp.option.name_server",
    "dhcp.option.netbios_over_tcpip_dd_name_server",
    "dhcp.option.netbios_over_tcpip_name_server",
    "dhcp.option.netbios_over_tcpip_node_type",
    "dhcp.option.netbios_over_tcpip_scope",
    "dhcp.option.nis_domain",
    "dhcp.option.nis_plus_domain",
    "dhcp.option.nis_plus_server",
    "dhcp.option.nis_server",
    "dhcp.option.nntp_server",
    "dhcp.option.non_local_source_routing",
    "dhcp.option.ntp_server",
    "dhcp.option.option_overload",
    "dhcp.option.padding",
    "dhcp.option.path_mtu_aging_timeout",
    "dhcp.option.perform_mask_discovery",
    "dhcp.option.perform_router_discover",
    "dhcp.option.pop3_server",
    "dhcp.option.quotes_server",
    "dhcp.option.rebinding_time_value",
    "dhcp.option.renewal_time_value",
    "dhcp.option.request_list_item",
    "dhcp.option.requested_ip_address",
    "dhcp.option.resource_location_server",
    "dhcp.option.root_path",
    "dhcp.option.router",
    "dhcp.option.router_solicitation_address",
    "dhcp.option.smtp_server",
    "dhcp.option.streettalk_da_server",
    "dhcp.option.streettalk_server",
    "dhcp.option.subnet_mask",
    "dhcp.option.subnet_selection_option",
    "dhcp.option.suboption_length",
    "dhcp.option.swap_server",
    "dhcp.option.tcp_default_ttl",
    "dhcp.option.tcp_keepalive_garbage",
    "dhcp.option.tcp_keepalive_interval",
    "dhcp.option.tftp_server_address",
    "dhcp.option.tftp_server_name",
    "dhcp.option.time_offset",
    "dhcp.option.time_server",
    "dhcp.option.trailer_encapsulation",
    "dhcp.option.type",
    "dhcp.option.tz_pcode",
    "dhcp.option.tz_tcode",
    "dhcp.option.user_class",
    "dhcp.option.user_class.data",
    "dhcp.option.user_class.length",
    "dhcp.option.value",
    "dhcp.option.value.address",
    "dhcp.option.value.bool",
    "dhcp.option.value.int",
    "dhcp.option.value.string",
    "dhcp.option.value.uint",
    "dhcp.option.vendor_class_id",
    "dhcp.option.vi.enterprise",
    "dhcp.option.vi.length",
    "dhcp.option.vi.tr111.device_product_class",
    "dhcp.option.vi.tr111.device_serial_number",
    "dhcp.option.vi.tr111.gateway_manufacturer_oui",
    "dhcp.option.vi.tr111.gateway_product_class",
    "dhcp.option.vi.tr111.gateway_serial_number",
    "dhcp.option.vi.tr111.suboption",
    "dhcp.option.vi.value",
    "dhcp.option.vi.value.uint",
    "dhcp.option.xwindows_system_display_manager",
    "dhcp.option.xwindows_system_font_server",
    "dhcp.secs",
    "dhcp.secs_le",
    "dhcp.server",
    "dhcp.server_name_overloaded_by_dhcp",
    "dhcp.type",
    "dhcp.vendor_specific_options",
    "dhcpfo.additionalheaderbytes",
    "dhcpfo.addressestransferred",
    "dhcpfo.assignedipaddress",
    "dhcpfo.bindingstatus",
    "dhcpfo.clienthardwareaddress",
    "dhcpfo.clienthardwaretype",
    "dhcpfo.clientidentifier",
    "dhcpfo.clientlasttransactiontime",
    "dhcpfo.delayedserviceparameter",
    "dhcpfo.dhcpstyleoption",
    "dhcpfo.ftddns",
    "dhcpfo.hashbucketassignment",
    "dhcpfo.ipflags",
    "dhcpfo.leaseexpirationtime",
    "dhcpfo.length",
    "dhcpfo.maxunackedbndupd",
    "dhcpfo.mclt",
    "dhcpfo.message",
    "dhcpfo.message_digest_type",
    "dhcpfo.messagedigest",
    "dhcpfo.optioncode",
    "dhcpfo.optionlength",
    "dhcpfo.options",
    "dhcpfo.payloaddata",
    "dhcpfo.poffset",
    "dhcpfo.potentialexpirationtime",
    "dhcpfo.protocolversion",
    "dhcpfo.receivetimer",
    "dhcpfo.rejectreason",
    "dhcpfo.relationshipname",
    "dhcpfo.serverflag",
    "dhcpfo.serverstatus",
    "dhcpfo.starttimeofstate",
    "dhcpfo.time",
    "dhcpfo.tls_reply",
    "dhcpfo.tls_request",
    "dhcpfo.type",
    "dhcpfo.vendorclass",
    "dhcpfo.vendoroption",
    "dhcpfo.xid",
    "dhcpv6.aftr_name",
    "dhcpv6.auth.algorithm",
    "dhcpv6.auth.info",
    "dhcpv6.auth.protocol",
    "dhcpv6.auth.rdm",
    "dhcpv6.auth.replay_detection",
    "dhcpv6.bcmcs_server_a",
    "dhcpv6.bcmcs_server_fqdn",
    "dhcpv6.capwap_ac_v6",
    "dhcpv6.client_domain",
    "dhcpv6.client_fqdn_flags",
    "dhcpv6.clientfqdn.bad_msgtype",
    "dhcpv6.clientfqdn.client.n",
    "dhcpv6.clientfqdn.client.s",
    "dhcpv6.clientfqdn.server.n",
    "dhcpv6.clientfqdn.server.o",
    "dhcpv6.clientfqdn.server.s",
    "dhcpv6.clt_time",
    "dhcpv6.dns_server",
    "dhcpv6.duid.bytes",
    "dhcpv6.duid.type",
    "dhcpv6.duiden.enterprise",
    "dhcpv6.duiden.identifier",
    "dhcpv6.duidll.hwtype",
    "dhcpv6.duidll.link_layer_addr",
    "dhcpv6.duidllt.hwtype",
    "dhcpv6.duidllt.link_layer_addr",
    "dhcpv6.duidllt.time",
    "dhcpv6.duiduuid.bytes",
    "dhcpv6.elapsed_time",
    "dhcpv6.hopcount",
    "dhcpv6.iaaddr.ip",
    "dhcpv6.iaaddr.pref_lifetime",
    "dhcpv6.iaaddr.valid_lifetime",
    "dhcpv6.iaid",
    "dhcpv6.iaid.t1",
    "dhcpv6.iaid.t2",
    "dhcpv6.iaprefix.pref_addr",
    "dhcpv6.iaprefix.pref_len",
    "dhcpv6.iaprefix.pref_lifetime",
    "dhcpv6.iaprefix.valid_lifetime",
    "dhcpv6.iata",
    "dhcpv6.interface_id",
    "dhcpv6.linkaddr",
    "dhcpv6.lq_client_link",
    "dhcpv6.lq_query",
    "dhcpv6.lq_query_link_address",
    "dhcpv6.lq_relay_data_peer_addr",
    "dhcpv6.msgtype",
    "dhcpv6.mudurl",
    "dhcpv6.nis_fqdn",
    "dhcpv6.nis_server",
    "dhcpv6.nisp_fqdn",
    "dhcpv6.nisp_server",
    "dhcpv6.ntpserver.addr",
    "dhcpv6.ntpserver.fqdn",
    "dhcpv6.ntpserver.mc_addr",
    "dhcpv6.ntpserver.option.length",
    "dhcpv6.ntpserver.option.type",
    "dhcpv6.option.length",
    "dhcpv6.option.type",
    "dhcpv6.option_preference",
    "dhcpv6.pana_agent",
    "dhcpv6.peeraddr",
    "dhcpv6.reconf_msg",
    "dhcpv6.requested_option_code",
    "dhcpv6.search_list_entry",
    "dhcpv6.sip_server_a",
    "dhcpv6.sip_server_domain_search_fqdn",
    "dhcpv6.sntp_server",
    "dhcpv6.status_code",
    "dhcpv6.status_msg",
    "dhcpv6.tld",
    "dhcpv6.unicast",
    "dhcpv6.userclass.length",
    "dhcpv6.userclass.opaque_data",
    "dhcpv6.vendorclass.data",
    "dhcpv6.vendorclass.enterprise",
    "dhcpv6.vendoropts.enterprise",
    "dhcpv6.vendoropts.enterprise.option_code",
    "dhcpv6.vendoropts.enterprise.option_data",
    "dhcpv6.vendoropts.enterprise.option_length",
    "dhcpv6.xid",
    "enrp.cause_code",
    "enrp.cause_info",
    "enrp.cause_length",
    "enrp.cause_padding",
    "enrp.cookie",
    "enrp.dccp_transport_port",
    "enrp.dccp_transport_reserved",
    "enrp.dccp_transport_service_code",
    "enrp.ipv4_address",
    "enrp.ipv6_address",
    "enrp.m_bit",
    "enrp.message_flags",
    "enrp.message_length",
    "enrp.message_type",
    "enrp.message_value",
    "enrp.parameter_length",
    "enrp.parameter_padding",
    "enrp.parameter_type",
    "enrp.parameter_value",
    "enrp.pe_checksum",
    "enrp.pe_identifier",
    "enrp.pool_element_home_enrp_server_identifier",
    "enrp.pool_element_pe_identifier",
    "enrp.pool_element_registration_life",
    "enrp.pool_handle_pool_handle",
    "enrp.pool_member_selection_policy_degradation",
    "enrp.pool_member_selection_policy_distance",
    "enrp.pool_member_selection_policy_load",
    "enrp.pool_member_selection_policy_load_dpf",
    "enrp.pool_member_selection_policy_priority",
    "enrp.pool_member_selection_policy_type",
    "enrp.pool_member_selection_policy_value",
    "enrp.pool_member_selection_policy_weight",
    "enrp.pool_member_selection_policy_weight_dpf",
    "enrp.r_bit",
    "enrp.receiver_servers_id",
    "enrp.reserved",
    "enrp.sctp_transport_port",
    "enrp.sender_servers_id",
    "enrp.server_information_server_identifier",
    "enrp.t_bit",
    "enrp.target_servers_id",
    "enrp.tcp_transport_port",
    "enrp.transport_use",
    "enrp.udp_lite_transport_port",
    "enrp.udp_lite_transport_reserved",
    "enrp.udp_transport_port",
    "enrp.udp_transport_reserved",
    "enrp.update_action",
    "enrp.w_bit",
    "poolshark.asap.message_value",
    "poolshark.dhcp.bad_cookie",
    "poolshark.dhcp.client_id.data",
    "poolshark.dhcp.client_id.type",
    "poolshark.dhcp.option.partial_value",
    "poolshark.dhcpfo.ddns.flags",
    "poolshark.dhcpfo.ddns.name",
    "poolshark.dhcpfo.ipflags.bootp",
    "poolshark.dhcpfo.ipflags.reserved",
    "poolshark.dhcpfo.optiondata",
    "poolshark.dhcpfo.trailing",
    "poolshark.dhcpv6.dhcp4o6_server",
    "poolshark.dhcpv6.ntpserver.data",
    "poolshark.dhcpv6.option.value",
    "poolshark.dhcpv6.relay_message",
    "poolshark.enrp.hropt_items",
    "poolshark.policy",
    "poolshark.rserpool.cause",
    "poolshark.rserpool.encoding",
    "poolshark.rserpool.server_flags",
    "poolshark.rserpool.trailing",
    "poolshark.rserpool.unknown_action",
    "poolshark.rserpool.unprocessed",
];

/// The fields of [`FIELDS`] that have no value, only a place in the tree (Wireshark's FT_NONE:
/// an expert note, a subtree of its own): tshark's `-T fields` writes 1 where one is present.
const NO_VALUE: [&str; 5] = [
    "dhcp.boot_filename_overloaded_by_dhcp",
    "dhcp.secs_le",
    "dhcp.server_name_overloaded_by_dhcp",
    "dhcpfo.dhcpstyleoption",
    "dhcpfo.payloaddata",
];

/// Whether `name` is one of the fields without a value ([`NO_VALUE`]).
pub fn no_value(name: &str) -> bool {
    NO_VALUE.contains(&name)
}

/// Whether `name` is a field of the messages' trees.
pub fn contains(name: &str) -> bool {
    FIELDS.binary_search(&name).is_ok()
}

/// Whether `name` belongs to a protocol catalogued here (`dhcp.…`, `asap.…`, ...), so that it
/// must be listed to be a field.
pub fn catalogued_protocol(name: &str) -> bool {
    name.split_once('.')
        .is_some_and(|(proto, _)| PROTOCOLS.contains(&proto))
}

/// Whether a field builder may use `name`: a name of another protocol (the lower layers', a text
/// node's empty name, a protocol's own) or one listed here.
pub fn allows(name: &str) -> bool {
    !catalogued_protocol(name) || contains(name)
}

/// Panics when a field builder uses a name [`allows`] refuses (builds with debug assertions:
/// the tests and the fuzzers). Each name is searched for once per thread: the builders pass
/// string literals, whose places a set remembers, so a tree costs a hash look-up per field
/// rather than a search of the catalogue (which was a fifth to a third of a fuzzer's time).
#[cfg(debug_assertions)]
pub fn assert_allowed(name: &'static str) {
    use std::cell::RefCell;
    thread_local! {
        static ALLOWED: RefCell<foldhash::HashSet<(usize, usize)>> = RefCell::default();
    }
    let key = (name.as_ptr() as usize, name.len());
    if ALLOWED.with_borrow(|seen| seen.contains(&key)) {
        return;
    }
    assert!(
        allows(name),
        "field name {name} is missing from src/field/catalogue.rs"
    );
    ALLOWED.with_borrow_mut(|seen| seen.insert(key));
}

/// Whether `name`, of a protocol catalogued here, is no field of it.
pub fn unknown(name: &str) -> bool {
    catalogued_protocol(name) && !contains(name)
}

/// What a display filter or a column naming an [`unknown`] field is told: tshark's words, and
/// where poolshark's names are shown.
pub fn unknown_text(name: &str) -> String {
    format!(
        "'{name}' is neither a field nor a protocol name (poolshark decodes no field of that \
         name; `read -V` and the JSON records show the names)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(debug_assertions)]
    fn a_builder_name_is_checked_every_time_until_it_passes() {
        // Other protocols' names and listed ones pass, again from the set.
        for _ in 0..2 {
            assert_allowed("ip.src");
            assert_allowed("asap.cookie");
        }
        // A refused name stays refused, each time it comes.
        for _ in 0..2 {
            let refused = std::panic::catch_unwind(|| assert_allowed("dhcp.no_such_field"));
            assert!(refused.is_err());
        }
    }

    #[test]
    fn sorted_without_repeats_and_of_the_catalogued_protocols() {
        for w in FIELDS.windows(2) {
            assert!(w[0] < w[1], "{} before {}", w[0], w[1]);
        }
        for f in FIELDS {
            assert!(catalogued_protocol(f), "{f}");
        }
    }

    #[test]
    fn lookups() {
        assert!(contains("dhcp.secs") && contains("dhcpv6.msgtype"));
        assert!(contains("asap.pool_handle_pool_handle"));
        assert!(!contains("dhcp.nosuch") && unknown("dhcp.nosuch"));
        // Other protocols' names and text nodes are not this list's business.
        assert!(allows("ip.src") && allows("") && allows("dhcp") && !unknown("eth.lg"));
        assert!(!allows("asap.no_such_field"));
    }
}
