#if canImport(Glibc)
import Glibc
#endif

/// Whether this test process runs under ThreadSanitizer or AddressSanitizer, which slow code
/// down 5 to 20 times: the heaviest loops scale their counts down then (the issue allows it).
let isUnderSanitizer: Bool = {
    guard let program = dlopen(nil, RTLD_NOW) else { return false }
    return dlsym(program, "__tsan_init") != nil || dlsym(program, "__asan_init") != nil
}()

/// Whether this test process runs under ThreadSanitizer.
let isUnderThreadSanitizer: Bool = {
    guard let program = dlopen(nil, RTLD_NOW) else { return false }
    return dlsym(program, "__tsan_init") != nil
}()

/// How much longer a "promptly" bound may be under a sanitizer, where everything runs 5 to 20
/// times slower and the parallel suite competes for 2 cores. Such bounds only tell a prompt answer
/// from a timeout's; they never judge speed.
let sanitizerSlack: Int = isUnderSanitizer ? 8 : 1
