// The code samples of SendingToOpenTelemetry.md, compiled. None of the functions here is called;
// OTLPDeliveryTests runs the same configuration against a LocalCollector.
import Foundation
import SimpleDataLogs
import SimpleDataLogsOTLP
import SimpleDataLogsTesting

// "Overview".
func openTelemetryConfigure(analytics: SimpleDataLogsClient) {
    let otlp = OTLPTransport(
        collector: URL(string: "http://otel-collector:4318")!,
        serviceName: "checkout",
        resourceAttributes: ["deployment.environment": "production"]
    )
    var configuration = SimpleDataLogsClient.Configuration.server(sendingTo: otlp)
    configuration.allowsInsecureHTTP = true   // the collector is in-cluster, on plain HTTP
    analytics.configure(configuration)
}

// "Test it".
func openTelemetryTestIt() throws -> OTLPTransport {
    let collector = try LocalCollector()
    defer { collector.stop() }
    collector.script([.status(429, retryAfter: "120"), .partialSuccess(rejected: 1, message: "too old")])
    let transport = OTLPTransport(collector: collector.endpoint, serviceName: "checkout-tests")
    return transport
}
