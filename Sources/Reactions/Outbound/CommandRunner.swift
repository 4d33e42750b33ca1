import Foundation
import LookCore
import Platform
import ReactionDomain

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `run:` commands: no shell, the fire in the environment (`LOOKD_*`) and as JSON on standard
/// input, standard output and error read together and kept up to `outputLimit` bytes, killed (with
/// the process group it started) at `timeLimit`. At most `limit` run at once; `waiting` more wait.
public final class CommandRunner: @unchecked Sendable {
    public typealias Settings = CommandSettings

    public let settings: Settings
    private let workers: Workers
    private let running = Running()

    /// The clock a command's time limit and its seconds are read on.
    let clock: any Clock

    public init(settings: Settings = Settings(), clock: any Clock) {
        self.settings = settings
        self.clock = clock
        workers = Workers(name: "lookd run", limit: settings.limit, waiting: settings.waiting)
        // A command that exits before reading its input must not end lookd with SIGPIPE.
        Platform.ignoreBrokenPipes()
    }

    /// Commands dropped because too many were running and waiting.
    public var dropped: Int { workers.dropped }

    /// Whether any run or wait now.
    public var busy: Bool { workers.busy }

    /// A stop's wait is over: every command still running is killed with its process group, and
    /// each reports as killed at the stop; those waiting do not start.
    public func stopAll() {
        workers.cancelWaiting()
        running.killAll()
    }

    /// Starts (or queues) `command` for `fire`; `done` gets its outcome on the command's thread.
    /// `done` gets why it was dropped, when it was (the queue full: then false is returned; a stop
    /// before it started).
    public func start(_ command: Command, fire: FireContext, done: @escaping @Sendable (ReactionReport.CommandRan) -> Void) -> Bool {
        let (settings, running, clock) = (settings, running, clock)
        return workers.submit(
            { done(Self.run(command, fire: fire, settings: settings, running: running, clock: clock)) },
            dropped: { reason in
                var ran = ReactionReport.CommandRan(fire: fire.fire, condition: fire.condition, arguments: command.arguments)
                ran.error = reason
                done(ran)
            })
    }

    /// Runs `command` and waits for it (on the calling thread); its time is the whole of it.
    static func run(
        _ command: Command, fire: FireContext, settings: Settings, running: Running = Running(), clock: any Clock
    ) -> ReactionReport.CommandRan {
        let started = clock.now()
        var ran = execute(command, fire: fire, settings: settings, running: running, deadline: started + settings.timeLimit, clock: clock)
        ran.seconds = clock.now() - started
        return ran
    }

    private static func execute(
        _ command: Command, fire: FireContext, settings: Settings, running: Running, deadline: Double, clock: any Clock
    ) -> ReactionReport.CommandRan {
        var ran = ReactionReport.CommandRan(fire: fire.fire, condition: fire.condition, arguments: command.arguments)
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        // lookd's secrets stay lookd's: a command gets the fire, not lookd's settings (LOOKD_ENGINE,
        // LOOKD_NOTIFY_USER), the page's token or a password.
        var environment = ProcessInfo.processInfo.environment.filter { Secrets.isPassedOn(environment: $0.key) }
        for (key, value) in fire.environment { environment[key] = value }
        // Pipes are made and the command started under one lock, so that no other command started
        // meanwhile inherits this one's pipe ends (its end of file would then wait for that one).
        let started_ = spawnLock.withLock { () -> Result<pid_t, SpawnError> in
            guard pipe(&input) == 0 else { return .failure(SpawnError(text: "pipe: \(String(cString: strerror(errno)))")) }
            guard pipe(&output) == 0 else {
                close(input[0]); close(input[1])
                return .failure(SpawnError(text: "pipe: \(String(cString: strerror(errno)))"))
            }
            for fd in input + output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            let result = spawn(command.executable, arguments: command.arguments, environment: environment, stdin: input[0], stdout: output[1])
            if case .failure = result { for fd in input + output { close(fd) } }
            return result
        }
        let pid: pid_t
        switch started_ {
        case .success(let p): pid = p
        case .failure(let error):
            ran.error = error.text
            return ran
        }
        running.add(pid)
        defer { running.remove(pid) }
        close(input[0])
        close(output[1])
        // The fire as JSON; the pipe takes it whole (it is far below the pipe's 64 KiB).
        _ = fcntl(input[1], F_SETFL, fcntl(input[1], F_GETFL) | O_NONBLOCK)
        let json = Array((fire.json.text() + "\n").utf8)
        _ = json.withUnsafeBytes { write(input[1], $0.baseAddress, $0.count) }
        close(input[1])

        let kept = read(output[0], until: deadline, limit: settings.outputLimit, clock: clock, counting: &ran.outputBytes)
        close(output[0])
        let status = reap(pid, until: deadline, clock: clock, ran: &ran, settings: settings)
        if status & 0x7f == 0 {
            ran.exitStatus = (status >> 8) & 0xff
        } else {
            ran.signal = status & 0x7f
        }
        if running.wasKilled(pid) {
            ran.killed = true
            ran.error = "killed at the stop (it was still running when lookd stopped)"
        }
        ran.output = String(decoding: kept, as: UTF8.self)
        ran.cut = ran.outputBytes > kept.count
        if !ran.killed, let code = ran.exitStatus, code != 0 { ran.error = "exited with status \(code)" }
        if !ran.killed, let signal = ran.signal { ran.error = "ended by signal \(signal)" }
        return ran
    }

    /// The command's output until it closes it or `deadline`: the first `limit` bytes; all of them counted.
    private static func read(_ fd: Int32, until deadline: Double, limit: Int, clock: any Clock, counting bytes: inout Int) -> [UInt8] {
        var kept: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let left = deadline - clock.now()
            if left <= 0 { break }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left * 1000, 1000).rounded(.up)))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += n
            if kept.count < limit { kept += buffer[0..<min(n, limit - kept.count)] }
        }
        return kept
    }

    /// Waits for the command to end until `deadline`, then kills it (`ran` says so); whatever it
    /// left running in its group goes with it. Its wait status.
    private static func reap(_ pid: pid_t, until deadline: Double, clock: any Clock, ran: inout ReactionReport.CommandRan, settings: Settings)
        -> Int32
    {
        var status: Int32 = 0
        var reaped = false
        while !reaped && clock.now() < deadline {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { reaped = true } else if r < 0 && errno != EINTR { break } else { clock.sleep(0.01) }
        }
        if !reaped {
            kill(-pid, SIGKILL)
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            ran.killed = true
            ran.error = "killed at the time limit of \(Quantity.number(settings.timeLimit)) s"
        } else {
            kill(-pid, SIGKILL)
        }
        return status
    }

    struct SpawnError: Error { let text: String }

    /// The commands running now, by process id (each the leader of its own group), and those a stop killed.
    final class Running: @unchecked Sendable {
        private let lock = NSLock()
        private var pids: Set<pid_t> = []
        private var killed: Set<pid_t> = []

        func add(_ pid: pid_t) { lock.withLock { _ = pids.insert(pid) } }
        func remove(_ pid: pid_t) {
            lock.withLock {
                _ = pids.remove(pid); _ = killed.remove(pid)
            }
        }
        func wasKilled(_ pid: pid_t) -> Bool { lock.withLock { killed.contains(pid) } }

        func killAll() {
            let all = lock.withLock { () -> Set<pid_t> in
                killed.formUnion(pids)
                return pids
            }
            for pid in all {
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
            }
        }
    }
    private static let spawnLock = NSLock()

    /// posix_spawn in a process group of its own, with the signals lookd ignores or blocks set back.
    private static func spawn(
        _ path: String, arguments: [String], environment: [String: String], stdin: Int32, stdout: Int32
    ) -> Result<pid_t, SpawnError> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stdout, 2)
        // Nothing else lookd has open reaches the command (glibc skips fds closed meanwhile).
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.compactMap { Int32($0) } ?? []
        for fd in open where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGXFSZ, SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGQUIT] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else { return .failure(SpawnError(text: "\(path): \(String(cString: strerror(result)))")) }
        return .success(pid)
    }
}
