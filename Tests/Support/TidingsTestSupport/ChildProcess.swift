import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program to its end with `posix_spawn` and collects what it wrote.
///
/// Why not Foundation's `Process`: on Linux it closes the child's inherited descriptors by adding one close
/// action per descriptor up to the highest one open, and it crashed inside `run()` (a bad read in `memcpy`)
/// while the test process, running every suite at once, held more than a thousand. Here the child closes
/// everything above standard error with glibc's single `closefrom` action instead.
package enum ChildProcess {
    package struct Output: Sendable {
        package var status: Int32
        package var standardOutput: Data
        package var standardError: Data
        /// The CPU time the child spent, user and system.
        package var cpuTime: Duration
        /// True when the child ran past its time limit and was killed.
        package var timedOut: Bool
    }

    /// Children running at once. Every suite runs in parallel; unbounded, a hundred CLI tests each start a
    /// child together and the machine is too loaded for any server in the run to answer in time.
    private static let slots = DispatchSemaphore(value: 2 * ProcessInfo.processInfo.activeProcessorCount)

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which its headers declare for
    /// `_GNU_SOURCE` only, so Swift does not see it.
    private static let addCloseFrom:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? =
            dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np").map {
                unsafeBitCast(
                    $0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
            }

    /// Runs `executable` with `arguments`; `environment`, when given, is its whole environment (otherwise
    /// this process's). `input` is written to its standard input, which is then closed. Returns once it has
    /// exited: its exit status (128 + the signal's number when a signal ended it), both outputs and its CPU
    /// time. A child still running after `timeLimit` is killed (`SIGKILL`), so a test that waits for something
    /// that never comes fails instead of hanging the run.
    package static func run(
        _ executable: String, arguments: [String], environment: [String: String]? = nil, input: Data? = nil,
        timeLimit: Duration = .seconds(120)
    ) throws -> Output {
        slots.wait()
        defer { slots.signal() }
        var pipes: [[Int32]] = []
        defer { for descriptor in pipes.joined() where descriptor >= 0 { close(descriptor) } }
        for _ in 0..<3 {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw Failure(description: "pipe: errno \(errno)") }
            pipes.append(ends)
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        }
        // The child's ends: read of the first pipe, write of the other two.
        let childEnds = [pipes[0][0], pipes[1][1], pipes[2][1]]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, descriptor) in childEnds.enumerated() {
            posix_spawn_file_actions_adddup2(&actions, descriptor, Int32(target))
        }
        guard let closeFrom = addCloseFrom else {
            throw Failure(description: "glibc has no posix_spawn_file_actions_addclosefrom_np (2.34 or later needed)")
        }
        _ = closeFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Test threads may block signals; the child starts with none blocked and default handlers.
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let variables = environment.map { $0.map { "\($0.key)=\($0.value)" } }
        let envp = variables.map { $0.map { strdup($0) } + [nil] }
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp ?? [] { free(pointer) }
        }
        var pid = pid_t()
        let spawned =
            envp.map { posix_spawn(&pid, executable, &actions, &attributes, argv, $0) }
            ?? posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw Failure(description: "posix_spawn \(executable): errno \(spawned)") }
        for index in 0..<3 {
            let end = index == 0 ? 0 : 1
            close(pipes[index][end])
            pipes[index][end] = -1
        }
        let (standardOutput, standardError, timedOut) = exchange(
            input: input ?? Data(), writingTo: &pipes[0][1], readingFrom: pipes[1][0], and: pipes[2][0],
            killing: pid, after: timeLimit)
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
        let signal = status & 0x7f
        return Output(
            status: signal == 0 ? (status >> 8) & 0xff : 128 + signal, standardOutput: standardOutput,
            standardError: standardError, cpuTime: duration(usage.ru_utime) + duration(usage.ru_stime),
            timedOut: timedOut)
    }

    private static func duration(_ time: timeval) -> Duration {
        .seconds(Int64(time.tv_sec)) + .microseconds(Int64(time.tv_usec))
    }

    /// Writes `input` and reads both outputs at once, so that a child blocked on a full pipe never waits on
    /// this process; returns when both outputs have ended, and whether `child` had to be killed for running
    /// past `timeLimit`.
    private static func exchange(
        input: Data, writingTo inputEnd: inout Int32, readingFrom output: Int32, and error: Int32,
        killing child: pid_t, after timeLimit: Duration
    )
        -> (Data, Data, timedOut: Bool)
    {
        let deadline = ContinuousClock.now + timeLimit
        var timedOut = false
        var collected = [Data(), Data()]
        var open = [true, true]
        var written = 0
        if input.isEmpty {
            close(inputEnd)
            inputEnd = -1
        }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while open.contains(true) {
            var polled = [output, error].enumerated().map { index, descriptor in
                pollfd(fd: open[index] ? descriptor : -1, events: Int16(POLLIN), revents: 0)
            }
            polled.append(pollfd(fd: inputEnd, events: Int16(POLLOUT), revents: 0))
            let remaining = timedOut ? -1 : Int32(max(0, (deadline - .now) / .milliseconds(1)))
            let ready = poll(&polled, nfds_t(polled.count), remaining)
            guard ready >= 0 || errno == EINTR else { break }
            if ready == 0, !timedOut {
                // Its outputs end when it dies.
                timedOut = true
                kill(child, SIGKILL)
                continue
            }
            for index in 0..<2 where open[index] && polled[index].revents != 0 {
                let count = read(polled[index].fd, &buffer, buffer.count)
                if count > 0 {
                    collected[index].append(contentsOf: buffer[0..<count])
                } else if count == 0 || errno != EINTR {
                    open[index] = false
                }
            }
            if inputEnd >= 0, polled[2].revents != 0 {
                // No more than the pipe is sure to take at once (POLLOUT), so the write never blocks.
                let count = input.withUnsafeBytes { bytes in
                    PortableSocket.write(
                        inputEnd, bytes.baseAddress! + written, min(Int(PIPE_BUF), bytes.count - written))
                }
                if count > 0 { written += count }
                if written == input.count || (count < 0 && errno != EINTR && errno != EAGAIN) {
                    close(inputEnd)
                    inputEnd = -1
                }
            }
        }
        return (collected[0], collected[1], timedOut)
    }
}
