// libFuzzer's driver, called from a Swift main (SwiftPM names each executable's entry point `<module>_main` and
// aliases `main` to it, so libFuzzer's own main cannot be used). Declared by libFuzzer (FuzzerInterface.h).
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
