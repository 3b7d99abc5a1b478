import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A WebSocket client connection that speaks text frames: the simulated phones (`indoorlab phone`) and the tests.
///
/// Plain `ws://` over SwiftNIO's WebSocket upgrader (the service runs on the venue's network or behind a TLS proxy;
/// a client library with TLS would compile BoringSSL for nothing here). Frames are masked as RFC 6455 asks of a
/// client; pings are answered; a close frame ends ``Inbound``.
public enum LiveSocket {
    /// Why a connection failed.
    public enum Failure: Error, CustomStringConvertible, Sendable {
        case badURL(String)
        /// The server answered the upgrade request with something other than a WebSocket (a 401 without the right token).
        case refused(String)
        case closed(code: Int?, reason: String)

        public var description: String {
            switch self {
            case .badURL(let u): return "\(u): expected ws://HOST:PORT/PATH"
            case .refused(let u): return "\(u): the service refused the WebSocket (is the token right? is it an IndoorLab service?)"
            case .closed(let code, let reason): return "the service closed the connection\(code.map { " (\($0))" } ?? ""): \(reason)"
            }
        }
    }

    enum Upgrade {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case notUpgraded
    }

    /// The text messages the server sends (pings answered, other frames skipped), ending at its close frame.
    public struct Inbound: AsyncSequence, Sendable {
        public typealias Element = String
        let frames: NIOAsyncChannelInboundStream<WebSocketFrame>
        let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>

        public struct AsyncIterator: AsyncIteratorProtocol {
            var frames: NIOAsyncChannelInboundStream<WebSocketFrame>.AsyncIterator
            let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>
            var partial: ByteBuffer?

            public mutating func next() async throws -> String? {
                while let frame = try await frames.next() {
                    switch frame.opcode {
                    case .text:
                        if frame.fin { return String(buffer: frame.unmaskedData) }
                        partial = frame.unmaskedData
                    case .continuation:
                        var data = frame.unmaskedData
                        partial?.writeBuffer(&data)
                        if frame.fin, let p = partial { partial = nil; return String(buffer: p) }
                    case .ping:
                        try? await outbound.write(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData))
                    case .connectionClose:
                        var data = frame.unmaskedData
                        let code = data.readInteger(as: UInt16.self).map(Int.init)
                        let reason = data.readString(length: data.readableBytes) ?? ""
                        if code == nil || code == 1000 { return nil }
                        throw LiveSocket.Failure.closed(code: code, reason: reason)
                    default:
                        continue
                    }
                }
                return nil
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(frames: frames.makeAsyncIterator(), outbound: outbound) }
    }

    /// Sends text frames.
    public struct Outbound: Sendable {
        let writer: NIOAsyncChannelOutboundWriter<WebSocketFrame>

        public func send(_ text: String) async throws {
            try await writer.write(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text)))
        }

        /// Sends a close frame (1000, normal closure).
        public func close() async {
            var data = ByteBuffer()
            data.writeInteger(UInt16(1000))
            try? await writer.write(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data))
        }
    }

    /// Connects to `url` (`ws://host:port/path`), with `bearer` as the Authorization token, and runs `body` on the
    /// connection; the connection closes when `body` returns.
    /// - Parameter maxFrameSize: the largest frame either side may send, bytes.
    public static func connect<T: Sendable>(_ url: String, bearer: String?, maxFrameSize: Int = 1 << 20,
                                            _ body: @Sendable (Inbound, Outbound) async throws -> T) async throws -> T {
        guard let parts = URLComponents(string: url), parts.scheme == "ws", let host = parts.host, !host.isEmpty else { throw Failure.badURL(url) }
        let port = parts.port ?? 80
        let path = (parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath) + (parts.percentEncodedQuery.map { "?" + $0 } ?? "")
        let upgrade: EventLoopFuture<Upgrade> = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: maxFrameSize, upgradePipelineHandler: { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            Upgrade.websocket(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
                        }
                    })
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: "\(host):\(port)")
                    if let bearer { headers.add(name: "Authorization", value: "Bearer \(bearer)") }
                    headers.add(name: "Content-Length", value: "0")
                    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration(upgradeRequestHead: head, upgraders: [upgrader],
                                                                              notUpgradingCompletionHandler: { channel in
                        channel.eventLoop.makeCompletedFuture { Upgrade.notUpgraded }
                    })
                    var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                    // A server that speaks first (the viewer socket's greeting) can have its first frame arrive in the
                    // same read as the 101 response: NIO drops such bytes unless told to forward them.
                    pipeline.leftOverBytesStrategy = .forwardBytes
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
                }
            }
        switch try await upgrade.get() {
        case .notUpgraded:
            throw Failure.refused(url)
        case .websocket(let channel):
            return try await channel.executeThenClose { inbound, outbound in
                try await body(Inbound(frames: inbound, outbound: outbound), Outbound(writer: outbound))
            }
        }
    }
}
