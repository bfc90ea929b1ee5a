#if canImport(Glibc)
import Glibc
#endif

/// Whether this test process runs under ThreadSanitizer or AddressSanitizer, which slow code
/// down 5 to 20 times: the heaviest loops scale their counts down then (the issue allows it).
let isUnderSanitizer: Bool = {
    guard let program = dlopen(nil, RTLD_NOW) else { return false }
    return dlsym(program, "__tsan_init") != nil || dlsym(program, "__asan_init") != nil
}()
