// The backend types live in the façade's namespace, so that `SimpleDataLogs.Transport` names
// the SDK's protocol even in a module that declares a `Transport` of its own: the module and the
// façade share the name `SimpleDataLogs`, and a member of the façade is what that spelling finds
// (Swift 6.2 has no way to name the module instead). Most code uses the short names below.

/// The SDK's transport protocol, `SimpleDataLogs.Transport`, by its short name.
public typealias Transport = SimpleDataLogs.Transport
/// A transport's failure, `SimpleDataLogs.TransportError`, by its short name.
public typealias TransportError = SimpleDataLogs.TransportError
/// One request to the ingest, `SimpleDataLogs.UploadRequest`, by its short name.
public typealias UploadRequest = SimpleDataLogs.UploadRequest
/// The ingest's answer, `SimpleDataLogs.UploadResponse`, by its short name.
public typealias UploadResponse = SimpleDataLogs.UploadResponse
/// The default transport, `SimpleDataLogs.URLSessionTransport`, by its short name.
public typealias URLSessionTransport = SimpleDataLogs.URLSessionTransport
/// The SDK's log levels, `SimpleDataLogs.LogLevel`, by their short name.
public typealias LogLevel = SimpleDataLogs.LogLevel
/// Where the SDK's log lines go, `SimpleDataLogs.LogSink`, by its short name.
public typealias LogSink = SimpleDataLogs.LogSink
