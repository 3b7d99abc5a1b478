import ArgumentParser
import Foundation
import LabCore
import LabLive

struct Phone: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phone",
        abstract: "Simulated phones that stream a walk to a live service and print what comes back.",
        discussion: """
        Each phone simulates the walk with its own seed (--seed, --seed + 1, …; in the field condition its own device offset), streams it as an app would (scans, headings, steps) in real time or --speed times faster, and prints its locations' error against the walk's truth and how many of its messages were acknowledged.

        With --survey the phones also send the walk's truth: a survey session (the service's survey token), whose recording calibrate and replay can score.

        Example:
          indoorlab phone museum-gallery --walk visitor --connect ws://127.0.0.1:8080 \\
              --token-file phone.token --phones 5 --speed 10
        """)

    @Argument(help: "Scenario YAML file or bundled scenario name (the venue the service serves).")
    var scenario: String

    @Option(help: "Walk to stream (default: the scenario's only walk).")
    var walk: String?

    @Option(help: "The service: ws://HOST:PORT (or its /v1/phone URL).")
    var connect: String

    @Option(help: "File holding the phones' token (the survey token with --survey).")
    var tokenFile: String

    @Option(help: "Phones streaming at once.")
    var phones = 1

    @Option(help: "Time runs this many times faster than real time.")
    var speed = 1.0

    @OptionGroup var seed: SeedOptions

    @Option(help: "ideal or field (the scenario's impairments: each phone its own device offset).")
    var condition: SimulationCondition = .field

    @Option(help: "Seconds of the walk per message (default: the scan window).")
    var messageInterval: Double?

    @Flag(help: "A survey session: send the walk's truth too.")
    var survey = false

    @Option(help: "Phone ids are PREFIX-1, PREFIX-2, …")
    var idPrefix = "sim"

    @Flag(help: "Start every phone at once, so all close their scan windows at the same instant (default: they join spread over one window, as phones arriving at a venue do).")
    var together = false

    @Flag(help: "Print the results as JSON.")
    var json = false

    func validate() throws {
        guard (1...2000).contains(phones) else { throw ValidationError("--phones: expected 1–2000, found \(phones)") }
        guard speed > 0, speed <= 1000 else { throw ValidationError("--speed: expected more than 0 and at most 1000") }
        if let m = messageInterval, !(m >= 0.01 && m <= 60) { throw ValidationError("--message-interval: expected 0.01–60 s") }
    }

    func run() throws {
        let s = try loadScenario(scenario)
        let w: Walk
        if let walk {
            guard let found = s.walk(named: walk) else {
                throw InputError(file: scenario, "no walk named '\(walk)'; walks: \(s.walks.map(\.name).joined(separator: ", "))")
            }
            w = found
        } else {
            guard s.walks.count == 1 else { throw InputError(file: scenario, "choose a walk with --walk: \(s.walks.map(\.name).joined(separator: ", "))") }
            w = s.walks[0]
        }
        var url = connect
        if url.hasPrefix("http://") { url = "ws://" + url.dropFirst(7) }
        if !url.contains("/v1/") { url = (url.hasSuffix("/") ? String(url.dropLast()) : url) + "/v1/phone" }
        var options = SimulatedPhones.Options(url: url, token: try LiveOptions.token(file: tokenFile), walk: w)
        options.seed = seed.seed; options.phones = phones; options.speed = speed; options.condition = condition
        options.messageInterval = messageInterval; options.survey = survey; options.idPrefix = idPrefix
        options.staggered = !together
        let quiet = json, settings = options
        let results = try blocking {
            try await SimulatedPhones.run(scenario: s, options: settings) { line in if !quiet { print(line); _ = try? flushStandardOutput() } }
        }
        if json {
            let items = results.map { r in
                "{\"phone\":\(LiveEncoder.str(r.phone)),\"windows\":\(r.windows),\"messages\":\(r.messagesSent),\"acknowledged\":\(r.acknowledged),"
                    + "\"locations\":\(r.locations),\"located\":\(r.located),\"meanErrorM\":\(LiveEncoder.num(r.meanError)),\"p95ErrorM\":\(LiveEncoder.num(r.p95Error)),"
                    + "\"ackP99Ms\":\(LiveEncoder.num(r.ackP99)),\"locationP99Ms\":\(LiveEncoder.num(r.locationP99)),\"errors\":[\(r.errors.map(LiveEncoder.str).joined(separator: ","))]}"
            }
            print("[" + items.joined(separator: ",\n") + "]")
        }
        let lost = results.reduce(0) { $0 + $1.messagesSent - $1.acknowledged }
        if lost > 0 {
            printError("error: \(lost) messages were not acknowledged")
            throw ExitCode(1)
        }
    }
}
extension SimulationCondition: ExpressibleByArgument {}
