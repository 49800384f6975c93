#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackModel
import PackNet

/// A TCP listening socket bound to a loopback address only (127.0.0.0/8 or ::1), answering each connection on its own
/// worker with one response and closing it. The POSIX calls and their Glibc/Darwin differences stay in this file.
public final class LoopbackListener: @unchecked Sendable {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The host is not a loopback address (the preview is never served to the network).
        case notLoopback(String)
        case addressInUse(UInt16)
        case system(String)

        public var description: String {
            switch self {
            case .notLoopback(let host): return "--host \(host) is not a loopback address; the preview is served on this machine only (127.0.0.1, ::1 or localhost)"
            case .addressInUse(let port): return "port \(port) in use: try --port with another number"
            case .system(let message): return message
            }
        }
    }

    public let fd: Int32
    /// The port bound (the one asked for, or the one the system chose for 0).
    public let port: UInt16
    /// The host as it goes in a URL: `127.0.0.1` or `[::1]`.
    public let urlHost: String
    /// Connections being answered; more than `maxConnections` at once are closed unanswered (a browser opens six).
    private let active = Counter()
    private let maxConnections = 16
    /// Seconds a connection may take to send its whole request head, and to take each part of the response.
    public var timeout = 5.0

    /// Binds `host` (`localhost`, an IPv4 loopback address or `::1`) at `port` (0: any free port) and listens.
    public init(host: String, port: UInt16) throws {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v4 = in_addr(), v6 = in6_addr()
        let family: Int32
        if name.lowercased() == "localhost" || (inet_pton(AF_INET, name, &v4) == 1) {
            if name.lowercased() == "localhost" { _ = inet_pton(AF_INET, "127.0.0.1", &v4) }
            guard UInt32(bigEndian: v4.s_addr) >> 24 == 127 else { throw Failure.notLoopback(host) }
            family = AF_INET
        } else if inet_pton(AF_INET6, name, &v6) == 1 {
            var loopback = in6_addr()
            _ = inet_pton(AF_INET6, "::1", &loopback)
            guard withUnsafeBytes(of: &v6, { Array($0) }) == withUnsafeBytes(of: &loopback, { Array($0) }) else { throw Failure.notLoopback(host) }
            family = AF_INET6
        } else {
            throw Failure.notLoopback(host)
        }
        #if os(Linux)
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(family, SOCK_STREAM, 0)
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        #endif
        guard fd >= 0 else { throw Failure.system("cannot make a socket: \(String(cString: strerror(errno)))") }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if family == AF_INET {
            var address = sockaddr_in()
            #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(port).bigEndian
            address.sin_addr = v4
            bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        } else {
            var address = sockaddr_in6()
            #if canImport(Darwin)
            address.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
            #endif
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(port).bigEndian
            address.sin6_addr = v6
            bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            if code == EADDRINUSE { throw Failure.addressInUse(port) }
            throw Failure.system("cannot listen on \(host):\(port): \(String(cString: strerror(code)))")
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        var actual = port
        if named == 0 {
            actual = withUnsafeBytes(of: &storage) { raw in
                family == AF_INET ? UInt16(bigEndian: raw.load(fromByteOffset: MemoryLayout<sockaddr_in>.offset(of: \.sin_port)!, as: UInt16.self))
                    : UInt16(bigEndian: raw.load(fromByteOffset: MemoryLayout<sockaddr_in6>.offset(of: \.sin6_port)!, as: UInt16.self))
            }
        }
        self.fd = fd
        self.port = actual
        var text = [CChar](repeating: 0, count: 64)
        if family == AF_INET {
            _ = inet_ntop(AF_INET, &v4, &text, socklen_t(text.count))
            urlHost = String(cString: text)
        } else {
            urlHost = "[::1]"
        }
    }

    deinit { close(fd) }

    /// The URL of the site's front page.
    public var url: String { "http://\(urlHost):\(port)/" }

    /// Accepts connections until `shouldStop` answers true (asked at least every 200 ms), answering each on a worker:
    /// `respond` gets the request head and returns the bytes to send.
    public func serve(shouldStop: () -> Bool, respond: @escaping @Sendable ([UInt8]) -> [UInt8]) {
        while !shouldStop() {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 200) > 0 else { continue }
            let client = accept(fd, nil, nil)
            guard client >= 0 else { continue }
            if active.increment() > maxConnections {
                _ = active.decrement()
                close(client)
                continue
            }
            let timeout = self.timeout, active = self.active
            DispatchQueue.global().async {
                Self.answer(client, timeout: timeout, respond: respond)
                close(client)
                _ = active.decrement()
            }
        }
    }

    /// Reads one request head (up to the blank line, at most `PreviewServer.maxHeadBytes`) and sends the response.
    static func answer(_ client: Int32, timeout: Double, respond: ([UInt8]) -> [UInt8]) {
        var wait = SocketWait.timeValue(timeout)
        _ = setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var on: Int32 = 1
        _ = setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        var complete = false
        // The whole head within `timeout`, not each read: a client sending a byte at a time cannot hold a worker.
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(SocketWait.seconds(timeout) * 1e9)
        while head.count <= PreviewServer.maxHeadBytes, DispatchTime.now().uptimeNanoseconds < deadline {
            let n = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            let searchFrom = max(0, head.count - 3)
            head.append(contentsOf: buffer[0..<n])
            if let range = head[searchFrom...].firstRange(of: end) {
                head = Array(head[..<range.upperBound])
                complete = true
                break
            }
        }
        guard complete || head.count > PreviewServer.maxHeadBytes else { return }  // closed or timed out mid-request
        let response = respond(complete ? head : [])
        sendAll(client, response)
    }

    static func sendAll(_ client: Int32, _ bytes: [UInt8]) {
        #if os(Linux)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(client, $0.baseAddress! + offset, bytes.count - offset, flags) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }
}
