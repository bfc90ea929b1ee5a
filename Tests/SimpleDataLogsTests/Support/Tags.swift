import Testing

/// The tags of the slow tests: the ones that cost real time or disturb their neighbours. A
/// suite or test carries one when it does the thing named, directly or through a helper
/// (``withDelivery(ingest:key:adjust:isolation:_:)`` opens a local ingest, ``ChildProcess`` starts
/// a process, ``whileCooperativePoolIsBlocked(_:)`` saturates the pool).
///
/// `swift test` runs every test, tagged or not: it is the suite CI runs. The fast inner loop,
/// `SDL_FAST_TESTS=1 swift test`, skips every test carrying one of these tags (see
/// ``FastLoop``), so a local run of the rest takes seconds.
extension Tag {
    /// Starts processes: a helper executable (``ChildProcess``), the `sdl` binary, a child that
    /// crashes or is killed with `SIGKILL`.
    @Tag static var processes: Self
    /// Opens sockets: a `LocalIngest` on 127.0.0.1, real HTTP through the URLSession transport,
    /// an `sdl` command that sends or serves.
    @Tag static var sockets: Self
    /// Runs a burst: thousands of events, thousands of files, or a big loop.
    @Tag static var burst: Self
    /// Blocks every thread of the cooperative pool on purpose (``whileCooperativePoolIsBlocked(_:)``),
    /// which delays every other test's timers and tasks meanwhile.
    @Tag static var poolSaturation: Self
}
