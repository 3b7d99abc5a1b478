import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// The service on the network (Hummingbird 2, hummingbird-websocket):
///
/// | route | who | what |
/// |---|---|---|
/// | `GET /?token=…` | viewer or survey token | the live map (``MapPage``) |
/// | `GET /healthz` | anyone | `ok` |
/// | `GET /metrics` | anyone | Prometheus text (``LiveMetrics``) |
/// | `GET /v1/venue` | anyone | the floorplan as JSON (``LiveVenue/floorplanJSON()``) |
/// | `GET /v1/phones` | viewer token | each phone's last location |
/// | `WS /v1/phone` | phone or survey token | a phone's session (``LiveSchema``) |
/// | `WS /v1/viewer` | viewer or survey token | locations and room presence events as they happen; a surveyor's taps |
///
/// A token comes as `Authorization: Bearer TOKEN`, or as `?token=TOKEN` (a browser's WebSocket cannot set headers).
/// Without the right one: 401, and nothing is read or stored.
public enum LiveServer {
    /// Serves `service` on `host:port` until the task is cancelled or the process gets SIGINT/SIGTERM; `running` gets
    /// the port bound (useful with port 0). The sessions' recordings are closed on the way out.
    /// - Parameter advertise: register the service with DNS-SD once it runs (``ServiceAdvertiser``); `advertised` gets
    ///   the outcome (the advertiser, or why there is none).
    public static func run(_ service: LiveService, host: String, port: Int, logLevel: Logger.Level = .warning,
                           advertise: Bool = false, advertised: @escaping @Sendable (Result<ServiceAdvertiser, any Error>) -> Void = { _ in },
                           running: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        var logger = Logger(label: "indoorlab.serve")
        logger.logLevel = logLevel
        let router = Router()
        router.get("/healthz") { _, _ in "ok\n" }
        router.get("/") { request, _ in
            guard let role = service.role(token: token(of: request)), role == .viewer || role == .surveyor else { throw unauthorized(service) }
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(string: MapPage.html)))
        }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(string: service.metrics.text())))
        }
        router.get("/v1/venue") { _, _ in json(service.venue.floorplanJSON()) }
        router.get("/v1/phones") { request, _ in
            guard service.role(token: token(of: request)) == .viewer else { throw unauthorized(service) }
            return json(service.phonesJSON())
        }

        // A plain request (no upgrade) for a socket comes here: 401 names what is missing.
        for (path, roles) in socketRoles {
            router.get(RouterPath(path)) { request, _ -> Response in
                guard let role = service.role(token: token(of: request)), roles.contains(role) else { throw unauthorized(service) }
                throw HTTPError(.badRequest, message: "a WebSocket: connect with a WebSocket client (Upgrade: websocket)")
            }
        }

        let sockets = Router(context: BasicWebSocketRequestContext.self)
        // The gate below has refused a request without the right token before these run.
        sockets.ws("/v1/phone", shouldUpgrade: { _, _ in .upgrade([:]) }, onUpgrade: { inbound, outbound, context in
            let role = service.role(token: token(of: context.request)) ?? .phone
            await PhoneConnection(service: service, role: role).run(inbound: inbound, outbound: outbound)
        })
        sockets.ws("/v1/viewer", shouldUpgrade: { _, _ in .upgrade([:]) }, onUpgrade: { inbound, outbound, context in
            await viewer(service, surveyor: service.role(token: token(of: context.request)) == .surveyor, inbound: inbound, outbound: outbound)
        })

        var wsConfiguration = WebSocketServerConfiguration(maxFrameSize: service.options.limits.frameBytes)
        wsConfiguration.autoPing = .enabled(timePeriod: .seconds(30))
        let advertisedBox = AdvertiserBox()
        let webSockets = sockets.buildResponder()
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(ws: wsConfiguration)
        // Hummingbird answers a refused upgrade with 400; the gate answers one without the right token with 401.
        let server = HTTPServerBuilder { responder in
            UpgradeGatedChannel(inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSockets, configuration: configuration)) { head in
                let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
                guard let roles = socketRoles[path] else { return true }
                let role = service.role(token: token(authorization: head.headers["authorization"].first, uri: head.uri))
                guard let role, roles.contains(role) else { service.metrics.reject(.unauthorized); return false }
                return true
            }
        }
        let app = Application(router: router, server: server,
                              configuration: .init(address: .hostname(host, port: port), serverName: "indoorlab"),
                              onServerRunning: { channel in
                                  let bound = channel.localAddress?.port ?? port
                                  if advertise {
                                      advertisedBox.set(Result {
                                          try ServiceAdvertiser(name: service.venue.name, port: bound,
                                                                txt: [("venue", service.venue.name), ("schema", "\(LiveSchema.version)"), ("path", "/v1/phone")])
                                      })
                                      advertised(advertisedBox.result!)
                                  }
                                  await running(bound)
                              },
                              logger: logger)
        defer { (try? advertisedBox.result?.get())?.stop(); service.viewers.finishAll(); service.close() }
        try await app.runService()
    }

    /// Who may open each socket.
    static let socketRoles: [String: [LiveRole]] = ["/v1/phone": [.phone, .surveyor], "/v1/viewer": [.viewer, .surveyor]]

    static func token(of request: Request) -> String? {
        token(authorization: request.headers[.authorization], uri: request.uri.description)
    }

    /// A request's token: `Authorization: Bearer TOKEN`, else the URI's `token` query item.
    static func token(authorization: String?, uri: String) -> String? {
        if let h = authorization, h.lowercased().hasPrefix("bearer ") { return String(h.dropFirst(7)).trimmingCharacters(in: .whitespaces) }
        return URLComponents(string: uri)?.queryItems?.first { $0.name == "token" }?.value
    }

    static func unauthorized(_ service: LiveService) -> HTTPError {
        service.metrics.reject(.unauthorized)
        return HTTPError(.unauthorized, message: "a bearer token is needed (Authorization: Bearer TOKEN, or ?token=TOKEN)")
    }

    static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// A viewer: its role, the phones' last locations, then every location and presence event as it happens. A surveyor
    /// (the survey token) may also send taps, `{"type":"tap","phone":ID,"x":…,"y":…}`: ground truth for that phone's
    /// survey session at its latest time, answered `{"type":"tap",…,"stored":true}` once committed.
    static func viewer(_ service: LiveService, surveyor: Bool, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let (id, stream) = service.viewers.subscribe()
        let (replies, reply) = AsyncStream<String>.makeStream()
        defer { service.viewers.unsubscribe(id) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await outbound.write(.text("{\"type\":\"viewer\",\"role\":\"\(surveyor ? "surveyor" : "viewer")\",\"schema\":\(LiveSchema.version)}"))
                for l in service.lastLocations() { try? await outbound.write(.text(LiveEncoder.location(l, type: "location"))) }
                await withTaskGroup(of: Void.self) { writers in
                    writers.addTask { for await text in stream { do { try await outbound.write(.text(text)) } catch { break } } }
                    writers.addTask { for await text in replies { do { try await outbound.write(.text(text)) } catch { break } } }
                    await writers.next()
                    writers.cancelAll()
                }
            }
            group.addTask {
                defer { reply.finish() }
                do {
                    for try await message in inbound.messages(maxSize: 4096) {
                        guard surveyor, case .text(let text) = message else {
                            reply.yield(LiveEncoder.encode(.error(MessageProblem(.forbidden, "a viewer sends nothing; taps need the survey token"))))
                            continue
                        }
                        struct Tap: Decodable { var type: String; var phone: String; var x: Double; var y: Double }
                        guard let tap = try? JSONDecoder().decode(Tap.self, from: Data(text.utf8)), tap.type == "tap" else {
                            reply.yield(LiveEncoder.encode(.error(MessageProblem(.malformed, "expected {\"type\":\"tap\",\"phone\":ID,\"x\":…,\"y\":…}"))))
                            continue
                        }
                        do throws(MessageProblem) {
                            try service.tap(phone: tap.phone, x: tap.x, y: tap.y) { stored in
                                reply.yield(LiveEncoder.object([("type", LiveEncoder.str("tap")), ("phone", LiveEncoder.str(tap.phone)),
                                                                ("x", LiveEncoder.num(tap.x)), ("y", LiveEncoder.num(tap.y)), ("stored", stored ? "true" : "false")]))
                            }
                        } catch {
                            service.metrics.reject(error.reason)
                            reply.yield(LiveEncoder.encode(.error(error)))
                        }
                    }
                } catch {}
            }
            await group.next()
            group.cancelAll()
            service.viewers.unsubscribe(id)
        }
    }
}

/// One phone's connection: reads its messages one by one, answers errors at once, acknowledgements once committed
/// (``LiveStorage``) and locations once located (``LocatingWorkers``). Everything it sends goes through one stream,
/// written by one task.
struct PhoneConnection {
    let service: LiveService
    let role: LiveRole

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let (stream, sink) = AsyncStream<Outgoing>.makeStream(bufferingPolicy: .unbounded)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await item in stream {
                    switch item {
                    case .text(let text):
                        do { try await outbound.write(.text(text)) } catch { return }
                    case .close(let code, let reason):
                        // The peer answers the close frame, which ends the reader.
                        try? await outbound.close(code, reason: reason)
                        return
                    }
                }
            }
            group.addTask {
                await read(inbound, sink: sink)
                sink.finish()
            }
            // Whichever ends first ends the connection: a writer that can no longer write would leave the phone
            // unacknowledged on a socket that still reads; it closes instead, and the phone sends again on reconnecting.
            await group.next()
            group.cancelAll()
        }
    }

    private func read(_ inbound: WebSocketInboundStream, sink: PhoneSink) async {
        let limits = service.options.limits, metrics = service.metrics
        var session: PhoneSession?
        func refuse(_ p: MessageProblem) {
            metrics.reject(p.reason)
            sink.yield(.text(LiveEncoder.encode(.error(p))))
        }
        do {
            for try await message in inbound.messages(maxSize: limits.frameBytes) {
                metrics.messages.increment()
                let received = ContinuousClock.now
                guard case .text(let text) = message else {
                    refuse(MessageProblem(.malformed, "binary frames are not part of the schema: send JSON text"))
                    continue
                }
                guard text.utf8.count <= limits.messageBytes else {
                    refuse(MessageProblem(.tooLarge, "\(text.utf8.count) bytes: a message may have at most \(limits.messageBytes); split the scans"))
                    continue
                }
                let m: PhoneMessage
                switch LiveDecoder.decode(text) {
                case .failure(let p): refuse(p); continue
                case .success(let decoded): m = decoded
                }
                guard let current = session else {
                    guard case .hello(let phone, let model, let app, let schema, let survey, let t) = m else {
                        refuse(MessageProblem(.protocolError, "send hello first", seq: m.sequence))
                        continue
                    }
                    // Opening (or creating) the recording waits for the disk: off the task pool, which reads every
                    // phone's messages, so 200 phones saying hello at once hold up nobody's acknowledgements.
                    let opened: Result<(PhoneSession, String), MessageProblem> = await withCheckedContinuation { done in
                        DispatchQueue.global(qos: .userInitiated).async {
                            done.resume(returning: Result { () throws(MessageProblem) in
                                try service.open(phone: phone, model: model, app: app, schema: schema, survey: survey, t: t, role: role, sink: sink)
                            })
                        }
                    }
                    do {
                        let (s, welcome) = try opened.get()
                        session = s
                        sink.yield(.text(welcome))
                    } catch {
                        // A refused hello (wrong token for a survey, too many phones, another schema) ends the connection.
                        refuse(error)
                        sink.yield(.close(.policyViolation, String(error.message.prefix(120))))
                        break
                    }
                    continue
                }
                do {
                    let accepted = try service.accept(m, of: current, receivedAt: received)
                    if let seq = accepted.ackNow { sink.yield(.text(LiveEncoder.encode(.ack(seq: seq)))) }
                    if let batch = accepted.batch, let seq = m.sequence {
                        service.storage.enqueue(batch, of: current, seq: seq, receivedAt: received)
                    }
                } catch {
                    refuse(error)
                }
            }
        } catch {
            // The transport ended the connection: a frame over the limit (closed with 1009), or a broken socket.
            if "\(error)".contains("messageTooLarge") || "\(error)".contains("tooLarge") { metrics.reject(.tooLarge) }
        }
        if let session { service.disconnect(session) }
    }
}

/// The service's connections with a gate in front of the WebSocket upgrade: a WebSocket request without the right token
/// gets 401 and is closed before anything is upgraded, read or stored.
struct UpgradeGatedChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    /// Whether a WebSocket upgrade request may go on.
    let allows: @Sendable (HTTPRequestHead) -> Bool

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(UpgradeGate(allows: allows), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async { await inner.handle(value: value, logger: logger) }
}

/// Between the HTTP decoder and the upgrade handler: refuses a WebSocket upgrade that `allows` refuses with 401, and
/// steps out of the pipeline once the first request has passed.
final class UpgradeGate: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    let allows: @Sendable (HTTPRequestHead) -> Bool
    private var refusing = false

    init(allows: @escaping @Sendable (HTTPRequestHead) -> Bool) { self.allows = allows }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refusing { return }
        guard case .head(let head) = unwrapInboundIn(data) else { context.fireChannelRead(data); return }
        let upgrade = head.headers["upgrade"].contains { $0.lowercased() == "websocket" }
        if upgrade && !allows(head) {
            refusing = true
            let body = ByteBuffer(string: "{\"error\":{\"message\":\"a bearer token is needed (Authorization: Bearer TOKEN, or ?token=TOKEN)\"}}")
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
            headers.add(name: "Content-Length", value: "\(body.readableBytes)")
            headers.add(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .unauthorized, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
            return
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

/// The advertiser, once the server runs (set on the server's task, read when it stops).
final class AdvertiserBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Result<ServiceAdvertiser, any Error>?
    func set(_ r: Result<ServiceAdvertiser, any Error>) { lock.lock(); value = r; lock.unlock() }
    var result: Result<ServiceAdvertiser, any Error>? { lock.lock(); defer { lock.unlock() }; return value }
}
