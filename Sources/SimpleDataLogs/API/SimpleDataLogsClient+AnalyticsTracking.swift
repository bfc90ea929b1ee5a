/// The client is the real ``AnalyticsTracking``: its own methods are the requirements, so app
/// code written against the protocol runs unchanged on ``SimpleDataLogs/shared`` or on a client of
/// its own, and a test passes a fake instead.
extension SimpleDataLogsClient: AnalyticsTracking {}
