// nf_tables message types and the attribute numbers that more than one of our encoders and
// decoders use (include/uapi/linux/netfilter/nf_tables.h). Those of one expression kind stay
// beside the code that writes or reads that kind.

export const NFT_MSG_NEWRULE = 6;
export const NFT_MSG_GETRULE = 7;
export const NFT_MSG_DELRULE = 8;

export const NFTA_RULE_TABLE = 1;
export const NFTA_RULE_CHAIN = 2;
export const NFTA_RULE_HANDLE = 3;
export const NFTA_RULE_EXPRESSIONS = 4;
export const NFTA_RULE_USERDATA = 7;
export const NFTA_LIST_ELEM = 1;
export const NFTA_EXPR_NAME = 1;
export const NFTA_EXPR_DATA = 2;
export const NFTA_CMP_DATA = 3;
export const NFTA_DATA_VALUE = 1;
export const NFTA_DATA_VERDICT = 2;
export const NFTA_VERDICT_CODE = 1;
export const NFTA_VERDICT_CHAIN = 2;
export const NFTA_IMMEDIATE_DATA = 2;

/** The nftables family of one IP version's tables (iptables-nft's, portmap's). */
export const NFT_FAMILY: Record<4 | 6, 'ip' | 'ip6'> = { 4: 'ip', 6: 'ip6' };
