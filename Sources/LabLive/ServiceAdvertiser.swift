import CDNSSD
import Foundation

/// Advertises the live service on the local network with DNS-SD (`_indoorlab._tcp`), through the Bonjour API: on
/// Linux Avahi's compatibility library over the Avahi daemon, on Apple's systems Bonjour itself. The TXT record names
/// the venue, the schema version and the phones' path, so an app can find the service without being told its address.
///
/// Registration needs a running DNS-SD daemon (avahi-daemon on Linux); without one ``init(name:port:txt:)`` throws
/// and the service runs unadvertised (`indoorlab serve` says so).
public final class ServiceAdvertiser: @unchecked Sendable {
    /// The service type phones browse for.
    public static let serviceType = "_indoorlab._tcp"

    /// Why registration failed: the DNS-SD error code and what it means.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var code: Int32
        public init(code: Int32) { self.code = code }
        public var description: String {
            let meaning: String
            switch code {
            case -65537: meaning = "no DNS-SD daemon answered (is avahi-daemon running, with D-Bus?)"
            case -65540: meaning = "a bad parameter"
            case -65548: meaning = "the name is taken"
            default: meaning = "DNS-SD error"
            }
            return "\(meaning) (\(code))"
        }
    }

    /// What the daemon said about the registration, once it answered.
    public enum State: Sendable, Equatable { case pending, registered(name: String), failed(Int32) }

    private final class Box: @unchecked Sendable {
        let lock = NSLock()
        var state = State.pending
    }

    private var ref: DNSServiceRef?
    private let box = Box()
    private var thread: Thread?
    private let stopFlag = Box()

    /// Registers `name` (the instance name, e.g. the venue's) on `port` with `txt` as its TXT record.
    /// - Throws: ``Failure`` when the registration is refused at once (no daemon, bad parameters).
    public init(name: String, port: Int, txt: [(String, String)]) throws {
        // Avahi's compatibility layer prints a warning on every first use unless told not to.
        setenv("AVAHI_COMPAT_NOWARN", "1", 0)
        var record: [UInt8] = []
        for (k, v) in txt {
            let entry = Array("\(k)=\(v)".utf8.prefix(255))
            record.append(UInt8(entry.count)); record += entry
        }
        var ref: DNSServiceRef?
        let context = Unmanaged.passUnretained(box).toOpaque()
        let error = record.withUnsafeBytes { bytes in
            DNSServiceRegister(&ref, 0, 0, name, Self.serviceType, nil, nil, UInt16(port).bigEndian, UInt16(bytes.count), bytes.baseAddress,
                               { _, _, code, name, _, _, context in
                guard let context else { return }
                let box = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue()
                box.lock.lock()
                box.state = code == 0 ? .registered(name: name.map { String(cString: $0) } ?? "") : .failed(code)
                box.lock.unlock()
            }, context)
        }
        guard error == 0, let ref else { throw Failure(code: error) }
        self.ref = ref
        // The daemon's answers arrive on the reference's socket: a thread hands them to the callback.
        let fd = DNSServiceRefSockFD(ref)
        let stop = stopFlag
        let handle = ReferenceHandle(ref)
        let t = Thread {
            let ref = handle.ref
            while true {
                stop.lock.lock(); let stopping = stop.state != .pending; stop.lock.unlock()
                if stopping { return }
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&p, 1, 200) > 0 { if DNSServiceProcessResult(ref) != 0 { return } }
            }
        }
        t.name = "indoorlab.dnssd"
        t.start()
        thread = t
    }

    /// The registration's state as the daemon last reported it.
    public var state: State { box.lock.lock(); defer { box.lock.unlock() }; return box.state }

    /// Waits up to `seconds` for the daemon's answer.
    public func waitForAnswer(seconds: Double) -> State {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if state != .pending { return state }
            usleep(20_000)
        }
        return state
    }

    /// Withdraws the service from the network.
    public func stop() {
        stopFlag.lock.lock(); stopFlag.state = .failed(0); stopFlag.lock.unlock()
        while let t = thread, !t.isFinished { usleep(10_000) }
        thread = nil
        if let ref { DNSServiceRefDeallocate(ref) }
        ref = nil
    }

    deinit { stop() }
}

/// A DNS-SD reference handed to the thread that reads its answers (only that thread uses it until ``ServiceAdvertiser/stop()``
/// has waited for the thread to end).
private struct ReferenceHandle: @unchecked Sendable {
    let ref: DNSServiceRef
    init(_ ref: DNSServiceRef) { self.ref = ref }
}
