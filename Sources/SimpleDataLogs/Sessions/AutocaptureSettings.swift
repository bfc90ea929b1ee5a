/// The autocapture and activity options of `configure`, handed to the stages that apply them.
struct AutocaptureSettings: Sendable {
    var capture: Autocapture = []
    var sessionMode: SessionMode = .activation
    var activity: ActivityTracking = .on
    var crashReasonRedaction: CrashReasonRedaction = .none
}
