// DNS-SD's Bonjour API: Apple's dns_sd.h, on Linux from Avahi's compatibility library (libavahi-compat-libdnssd-dev).
#include <dns_sd.h>
