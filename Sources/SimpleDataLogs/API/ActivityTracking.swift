/// Whether events carry `app_state` and `engaged_ms`.
public enum ActivityTracking: Sendable, Hashable {
    /// Every event tracked now says whether someone was using the app (the default).
    case on
    /// No event carries `app_state` or `engaged_ms`, except an `app_state` the caller passes.
    case off
}
