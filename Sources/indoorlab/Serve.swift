import ArgumentParser
import Foundation
import LabCore
import LabLive

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the live venue service: phones stream what they hear and get located live; viewers watch.",
        discussion: """
        Phones connect to ws://HOST:PORT/v1/phone with the phone token (Authorization: Bearer TOKEN, or ?token=), say hello, and stream scans, headings, steps and (survey sessions) checkpoints; each message is acknowledged once it is committed to the phone's recording (DIR/PHONE.sqlite, which replay reads), and each scan window gets a location back (the last once the phone is silent for --idle seconds). The schema is in docs/live.md.

        Viewers (the viewer token): GET /v1/phones, and ws://HOST:PORT/v1/viewer for locations and room presence events. Anyone: GET /healthz, /metrics (Prometheus), /v1/venue (the floorplan).

        The service advertises itself with DNS-SD as _indoorlab._tcp (TXT: venue, schema, path) through the Avahi daemon, when one runs; --no-advertise turns that off.

        Stops on SIGINT or SIGTERM, closing every recording. A restart resumes each phone's recording where it stopped.

        Example:
          openssl rand -hex 16 > phone.token; openssl rand -hex 16 > viewer.token
          indoorlab serve museum-gallery --port 8080 --token-file phone.token \\
              --viewer-token-file viewer.token --recordings live/
        """)

    @Argument(help: "Scenario YAML file or bundled scenario name: the venue served.")
    var scenario: String

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0: any free port; the one bound is printed).")
    var port = 8080

    @Option(help: "File holding the phones' token (at least 16 characters).")
    var tokenFile: String

    @Option(help: "File holding the viewers' read-only token.")
    var viewerTokenFile: String

    @Option(help: "File holding the surveyors' token: survey sessions (ground truth) need it. Without it, no surveys.")
    var surveyTokenFile: String?

    @Option(help: "Folder the phones' recordings go to (created if needed).")
    var recordings: String

    @OptionGroup var seed: SeedOptions

    @Option(help: "Most phones connected at once.")
    var maxPhones = 500

    @Option(help: "Most messages per second from one phone.")
    var maxRate = 50.0

    @Option(help: "Largest message, bytes.")
    var maxMessageBytes = 65_536

    @Option(help: "Seconds of silence after which a phone's open scan window is located (what it sends of that window later is refused).")
    var idle = 3.0

    @Flag(help: "Do not advertise the service with DNS-SD (_indoorlab._tcp, through the Avahi daemon).")
    var noAdvertise = false

    @Flag(help: "Print the port bound as JSON ({\"port\": N, …}) instead of a sentence.")
    var json = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port: expected 0–65535, found \(port)") }
        guard maxPhones >= 1 else { throw ValidationError("--max-phones: expected at least 1") }
        guard maxRate > 0, maxRate.isFinite else { throw ValidationError("--max-rate: expected a positive number") }
        guard (1024...(1 << 20)).contains(maxMessageBytes) else { throw ValidationError("--max-message-bytes: expected 1024–1048576") }
        guard idle >= 0.1, idle <= 3600 else { throw ValidationError("--idle: expected 0.1–3600 s, found \(idle)") }
    }

    func run() throws {
        let venue = try LiveVenue(scenario: scenario)
        var options = LiveOptions(recordings: recordings, phoneToken: try LiveOptions.token(file: tokenFile),
                                  viewerToken: try LiveOptions.token(file: viewerTokenFile),
                                  surveyToken: try surveyTokenFile.map(LiveOptions.token(file:)))
        if let problem = options.tokenProblem { throw InputError(file: viewerTokenFile, problem) }
        options.seed = seed.seed
        options.limits.phones = maxPhones
        options.limits.messagesPerSecond = maxRate
        options.limits.messageBytes = maxMessageBytes
        options.limits.idleSeconds = idle
        let service = try LiveService(venue: venue, options: options)
        let (host, json, advertise) = (self.host, self.json, !noAdvertise)
        try blocking {
            try await LiveServer.run(service, host: host, port: port, advertise: advertise, advertised: { outcome in
                switch outcome {
                case .success(let a):
                    // The daemon answers within a moment; say what it said (the name may have been changed to be unique).
                    let state = a.waitForAnswer(seconds: 2)
                    if case .registered(let name) = state { printError("advertised as '\(name)' (\(ServiceAdvertiser.serviceType))") }
                    else if case .failed(let code) = state { printError("warning: DNS-SD refused the registration (\(ServiceAdvertiser.Failure(code: code))); serving unadvertised") }
                case .failure(let e):
                    printError("warning: not advertised with DNS-SD: \(e); serving unadvertised (--no-advertise hides this)")
                }
            }) { bound in
                if json {
                    print("{\"port\":\(bound),\"venue\":\(LiveEncoder.str(venue.name)),\"schema\":\(LiveSchema.version)}")
                } else {
                    print("serving \(venue.name) on http://\(host):\(bound) — phones: ws://\(host):\(bound)/v1/phone, viewers: ws://\(host):\(bound)/v1/viewer, metrics: /metrics")
                }
                _ = try? flushStandardOutput()
            }
        }
    }
}

/// Runs `body` on Swift's concurrency pool and waits for it (the commands are synchronous; the live ones are not).
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>(), done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

/// Where ``blocking(_:)`` keeps the result until the waiting thread reads it (after the semaphore).
private final class ResultBox<T>: @unchecked Sendable { var result: Result<T, any Error>? }
