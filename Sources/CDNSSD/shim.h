// DNS-SD's Bonjour API: Apple's dns_sd.h, on Linux from Avahi's compatibility library (libavahi-compat-libdnssd-dev,
// which keeps it in a folder of its own; its pkg-config file is not used, as SwiftPM refuses its -D_REENTRANT).
#if __has_include(<dns_sd.h>)
#include <dns_sd.h>
#else
#include <avahi-compat-libdns_sd/dns_sd.h>
#endif
