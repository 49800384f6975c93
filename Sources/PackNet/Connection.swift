import CTLS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One TCP connection, optionally wrapped in TLS (libssl, verifying the server's certificate chain against the
/// system's trust store — or `SSL_CERT_FILE` — and its name against the host). Every connect, send and receive is
/// bounded by `timeout`, so a server that stops responding is noticed instead of waited on forever; a receive given
/// what is left of a deadline waits no longer than that either. Every wait goes through `SocketWait`, so no value of
/// `timeout` can turn it off or trap.
package final class Connection {
    private let fd: Int32
    private let timeout: Double
    /// The receive timeout the socket has now (SO_RCVTIMEO), in seconds.
    private var receiveWait: Double
    private var ssl: OpaquePointer?
    private var context: OpaquePointer?
    private let host: String

    package init(host: String, port: UInt16, secure: Bool, timeout: Double) throws {
        self.host = host
        self.timeout = SocketWait.seconds(timeout)
        receiveWait = self.timeout
        fd = try Self.dial(host: host, port: port, timeout: self.timeout)
        var tv = SocketWait.timeValue(self.timeout)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if secure {
            do { try startTLS() } catch {
                disconnect()
                throw error
            }
        }
    }

    deinit { disconnect() }

    private var closed = false

    package func disconnect() {
        guard !closed else { return }
        closed = true
        if let ssl { SSL_free(ssl) }
        if let context { SSL_CTX_free(context) }
        close(fd)
    }

    /// Ends the connection's traffic in both directions, from any thread: a receive waiting on it returns at once
    /// (as if the server had closed). The descriptor stays open until `disconnect`, so it cannot be reused meanwhile.
    package func shutDown() {
        guard !closed else { return }
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Resolves `host` and connects to the first address that answers within `timeout`.
    private static func dial(host: String, port: UInt16, timeout: Double) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamSocket
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else { throw HTTPError.connect("\(host): \(String(cString: gai_strerror(status)))") }
        defer { freeaddrinfo(first) }
        var reason = "no address"
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let info = next {
            next = info.pointee.ai_next
            let fd = openSocket(info.pointee)
            guard fd >= 0 else { reason = String(cString: strerror(errno)); continue }
            // Non-blocking connect, so the wait is bounded by poll's timeout rather than the kernel's minutes.
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            var result = connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen)
            if result != 0 && errno == EINPROGRESS {
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&p, 1, SocketWait.milliseconds(timeout))
                if ready == 1 {
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                    result = error == 0 ? 0 : -1
                    errno = error
                } else {
                    result = -1
                    errno = ETIMEDOUT
                }
            }
            if result == 0 {
                _ = fcntl(fd, F_SETFL, flags)
                return fd
            }
            reason = String(cString: strerror(errno))
            close(fd)
        }
        throw HTTPError.connect("\(host):\(port): \(reason)")
    }

    private func startTLS() throws {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { throw HTTPError.tls(OpenSSLErrorQueue.describe("cannot create a TLS context")) }
        context = ctx
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        guard SSL_CTX_set_default_verify_paths(ctx) == 1, CTLS_require_tls12(ctx) == 1 else {
            throw HTTPError.tls(OpenSSLErrorQueue.describe("cannot load the trust store"))
        }
        guard let ssl = SSL_new(ctx) else { throw HTTPError.tls(OpenSSLErrorQueue.describe("cannot create a TLS session")) }
        self.ssl = ssl
        SSL_set_fd(ssl, fd)
        var address = in6_addr()
        let isIP = inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
        if isIP {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 else { throw HTTPError.tls("cannot check the address \(host)") }
        } else {
            guard CTLS_set_server_name(ssl, host) == 1, SSL_set1_host(ssl, host) == 1 else { throw HTTPError.tls("cannot check the name \(host)") }
        }
        let result = withoutSIGPIPE { SSL_connect(ssl) }
        guard result == 1 else {
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK {
                throw HTTPError.tls("the certificate of \(host) is not trusted: \(String(cString: X509_verify_cert_error_string(verify)))")
            }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw HTTPError.timedOut("the TLS handshake with \(host) stalled") }
            throw HTTPError.tls(OpenSSLErrorQueue.describe("the handshake with \(host) failed"))
        }
    }

    /// Sends all of `bytes`.
    package func transmit(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n: Int = bytes.withUnsafeBytes { raw in
                let start = raw.baseAddress! + offset, count = raw.count - offset
                if let ssl { return Int(withoutSIGPIPE { SSL_write(ssl, start, Int32(count)) }) }
                return withoutSIGPIPE { send(fd, start, count, noSIGPIPE) }
            }
            if n > 0 { offset += n; continue }
            if n < 0 && errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw HTTPError.timedOut("\(host) stopped accepting the request") }
            throw HTTPError.interrupted("sending the request to \(host) failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Receives up to `buffer.count` bytes; 0 when the server closed the connection cleanly. With `remaining` (the
    /// seconds left of a deadline), the wait is the shorter of that and the connection's timeout, so a timeout longer
    /// than the deadline cannot hold the caller past it.
    package func receive(into buffer: UnsafeMutableRawBufferPointer, remaining: Double? = nil) throws -> Int {
        let wait = SocketWait.seconds(min(timeout, remaining ?? timeout))
        if wait != receiveWait {
            var tv = SocketWait.timeValue(wait)
            guard setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
                throw HTTPError.interrupted("cannot bound the wait for \(host): \(String(cString: strerror(errno)))")
            }
            receiveWait = wait
        }
        while true {
            errno = 0
            let n: Int
            if let ssl {
                let r = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
                if r > 0 { return Int(r) }
                let error = SSL_get_error(ssl, r)
                if error == SSL_ERROR_ZERO_RETURN { return 0 }
                if error == SSL_ERROR_SYSCALL && errno == 0 { return 0 }  // closed without close_notify: the length check decides
                n = -1
                if error != SSL_ERROR_SYSCALL && error != SSL_ERROR_WANT_READ {
                    throw HTTPError.tls(OpenSSLErrorQueue.describe("reading from \(host) failed"))
                }
            } else {
                n = recv(fd, buffer.baseAddress, buffer.count, 0)
                if n >= 0 { return n }
            }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw HTTPError.timedOut("\(host) stopped sending") }
            throw HTTPError.interrupted("reading from \(host) failed: \(String(cString: strerror(errno)))")
        }
    }
}

/// `SOCK_STREAM`: an enum case in Glibc, a plain Int32 in Darwin.
#if os(Linux)
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#else
private let streamSocket = SOCK_STREAM
#endif

/// A socket for `info` that is not inherited by child processes and, on Apple platforms, never raises SIGPIPE.
/// Linux sets close-on-exec atomically; Darwin has no SOCK_CLOEXEC, so it is set right after (this process does not
/// fork meanwhile), with SO_NOSIGPIPE, which Linux lacks (MSG_NOSIGNAL and `withoutSIGPIPE` cover it there).
private func openSocket(_ info: addrinfo) -> Int32 {
    #if os(Linux)
    return socket(info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.ai_protocol)
    #else
    let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
    guard fd >= 0 else { return fd }
    var on: Int32 = 1
    guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0,
          setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
        let saved = errno
        close(fd)
        errno = saved
        return -1
    }
    return fd
    #endif
}

/// `send` flags: on Linux, MSG_NOSIGNAL keeps a closed connection from raising SIGPIPE; Apple systems have no such
/// flag, and the socket's SO_NOSIGPIPE covers them.
#if os(Linux)
private let noSIGPIPE = Int32(MSG_NOSIGNAL)
#else
private let noSIGPIPE: Int32 = 0
#endif

/// Runs `body` with SIGPIPE blocked on this thread and discards one raised meanwhile, so a server that closes the
/// connection mid-write makes libssl's write fail with EPIPE instead of killing the app. On Apple platforms the
/// socket's SO_NOSIGPIPE already keeps every write on it (libssl's included) from raising the signal.
private func withoutSIGPIPE<T>(_ body: () -> T) -> T {
    #if !os(Linux)
    return body()
    #else
    var block = sigset_t(), old = sigset_t()
    sigemptyset(&block)
    sigaddset(&block, SIGPIPE)
    pthread_sigmask(SIG_BLOCK, &block, &old)
    let result = body()
    var pending = sigset_t()
    sigpending(&pending)
    if sigismember(&pending, SIGPIPE) == 1 {
        var zero = timespec(tv_sec: 0, tv_nsec: 0)
        sigtimedwait(&block, nil, &zero)
    }
    pthread_sigmask(SIG_SETMASK, &old, nil)
    return result
    #endif
}
