import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization
import TetherLocking

/// What a store is told by its link.
protocol PostgresLinkDelegate: AnyObject, Sendable {
  /// A notification on the store's channel; not called for those this link's own statements
  /// caused (their versions come back with the statements).
  func announced(_ payload: String)
  /// The link is connected and listening (again, after an outage the store was told of).
  func linkConnected()
  /// The link was lost, or could not be made, for `error`.
  func linkLost(_ error: PostgresFailure)
}

/// The one connection of a store to its server, kept open for the store's life: it makes the
/// table when missing, LISTENs on the channel, checks itself every second, and when it drops
/// (a server restart, a network cut found by a check that timed out) it connects again with
/// backoff, and tells the store, which re-reads what it may have missed.
///
/// Statements run on it in the order they are sent; each has a deadline, past which the
/// connection is taken for dead and closed.
final class PostgresLink: Sendable {
  private enum State {
    case connecting(waiters: [@Sendable (Result<Connected, PostgresFailure>) -> Void])
    case connected(Connected)
    case waiting(PostgresFailure)
    case closed
  }

  /// A connection in use, and the server process at its other end.
  struct Connected: Sendable {
    let connection: PostgresConnection
    let serverProcess: Int32
    let heartbeat: RepeatedTask
  }

  private let state = UnfairMutex<State>(.connecting(waiters: []))
  /// Weak: the delegate (the store) owns the link.
  private let delegateReference = UnfairMutex(WeakDelegate())

  private struct WeakDelegate {
    weak var delegate: (any PostgresLinkDelegate)?
  }

  private var delegate: (any PostgresLinkDelegate)? {
    delegateReference.withLock { $0.delegate }
  }
  private let settings: PostgresSettings
  private let statements: PostgresStatements
  private static let nextID = Atomic<Int>(1)
  private static var logger: Logger { PostgresStore.logger }

  /// How long a statement may take before the connection is taken for dead (a heartbeat, which
  /// carries nothing, has 3 s).
  static let deadline = TimeAmount.seconds(5)

  /// The one event loop of every connection of the link and of every result it hands out:
  /// results are told in the order the server answered, which is the order the statements were
  /// sent. On other loops a load's "no row", read before another host's write, could be told
  /// after that write's announcement was read and told, and put the holder back to its default.
  private let loop = PostgresConnection.defaultEventLoopGroup.next()

  init(settings: PostgresSettings) {
    self.settings = settings
    self.statements = PostgresStatements(table: settings.table, channel: settings.channel)
  }

  /// Starts connecting; `delegate` is told from then on (held weakly: it owns the link).
  func start(delegate: any PostgresLinkDelegate) {
    delegateReference.withLock { $0.delegate = delegate }
    connect(attempt: 0)
  }

  /// Closes the connection for good (the store is going), without waiting.
  func close() {
    guard let connected = closeState() else { return }
    Self.abandon(connected.connection)
  }

  /// Closes the connection for good and returns once it is closed: the server is told the
  /// session ends (Terminate), so it leaves `pg_stat_activity` at once. Statements run from
  /// now on fail with ``PostgresFailure/closed``.
  func shutdown() async {
    guard let connected = closeState() else { return }
    do {
      try await connected.connection.close().get()
    } catch {
      // The connection was already going (the server stopped, the network dropped): it is
      // closed all the same, and there is nobody left to tell but the log.
      Self.logger.notice("\(settings): closing the connection: \(PostgresFailure(error))")
    }
  }

  /// Marks the link closed, fails the statements waiting for a connection being made (which
  /// is dropped when made), and returns the connection there was, its heartbeat stopped.
  private func closeState() -> Connected? {
    let (connected, waiters) = state.withLock {
      state -> (Connected?, [@Sendable (Result<Connected, PostgresFailure>) -> Void]) in
      defer { state = .closed }
      switch state {
      case .connected(let connected): return (connected, [])
      case .connecting(let waiters): return (nil, waiters)
      case .waiting, .closed: return (nil, [])
      }
    }
    for waiter in waiters { waiter(.failure(.closed)) }
    connected?.heartbeat.cancel()
    return connected
  }

  /// Runs `query`: now when connected, once the current attempt ends when connecting, and
  /// failing at once when the link is down.
  func run(_ query: PostgresQuery) -> EventLoopFuture<PostgresQueryResult> {
    let promise = loop.makePromise(of: PostgresQueryResult.self)
    withConnection { result in
      switch result {
      case .success(let connected):
        Self.run(query, on: connected.connection).cascade(to: promise)
      case .failure(let failure):
        promise.fail(failure)
      }
    }
    return promise.futureResult
  }

  private func withConnection(
    _ body: @escaping @Sendable (Result<Connected, PostgresFailure>) -> Void
  ) {
    let now = state.withLock { state -> Result<Connected, PostgresFailure>? in
      switch state {
      case .connected(let connected): return .success(connected)
      case .waiting(let failure): return .failure(failure)
      case .closed: return .failure(.closed)
      case .connecting(var waiters):
        waiters.append(body)
        state = .connecting(waiters: waiters)
        return nil
      }
    }
    if let now { body(now) }
  }

  /// Runs `query` on `connection`, closing the connection if it takes past the deadline.
  private static func run(
    _ query: PostgresQuery, on connection: PostgresConnection, deadline: TimeAmount = deadline
  ) -> EventLoopFuture<PostgresQueryResult> {
    let timer = connection.eventLoop.scheduleTask(in: deadline) {
      let seconds = Double(deadline.nanoseconds) / 1e9
      logger.warning("a statement took over \(seconds) s; taking the connection for lost")
      Self.abandon(connection)
    }
    let result = connection.query(query, logger: logger)
    result.whenComplete { _ in timer.cancel() }
    return result.flatMapErrorThrowing { throw PostgresFailure($0) }
  }

  /// Connects (through event-loop futures, so that no thread of Swift's concurrency pool,
  /// which a caller waiting on a statement may be holding, is needed for it).
  private func connect(attempt: Int) {
    open().whenComplete { result in
      self.opened(result.mapError(PostgresFailure.init), attempt: attempt)
    }
  }

  private func opened(_ result: Result<Connected, PostgresFailure>, attempt: Int) {
    let (waiters, installed) = state.withLock {
      state -> ([@Sendable (Result<Connected, PostgresFailure>) -> Void], Bool) in
      guard case .connecting(let waiters) = state else { return ([], false) }
      switch result {
      case .success(let connected): state = .connected(connected)
      case .failure(let failure): state = .waiting(failure)
      }
      return (waiters, true)
    }
    guard installed else {
      // Closed meanwhile: the new connection is not wanted.
      if case .success(let connected) = result {
        connected.heartbeat.cancel()
        Self.abandon(connected.connection)
      }
      return
    }
    for waiter in waiters { waiter(result) }
    let delegate = self.delegate
    switch result {
    case .success(let connected):
      if attempt > 0 { Self.logger.notice("\(settings): connected again") }
      connected.connection.closeFuture.whenComplete { _ in self.lost(connected) }
      delegate?.linkConnected()
    case .failure(let failure):
      if attempt <= 1 || attempt.isMultiple(of: 30) {
        Self.logger.warning("\(settings): \(failure); trying again")
      }
      delegate?.linkLost(failure)
      retry(after: attempt)
    }
  }

  /// Waits 100 ms doubling to 2 s, then tries again unless closed.
  private func retry(after attempt: Int) {
    let backoff = Int64(min(2_000, 100 << min(attempt, 5)))
    loop.scheduleTask(in: .milliseconds(backoff)) {
      let goOn = self.state.withLock { state -> Bool in
        guard case .waiting = state else { return false }
        state = .connecting(waiters: [])
        return true
      }
      if goOn { self.connect(attempt: attempt + 1) }
    }
  }

  private func lost(_ connected: Connected) {
    connected.heartbeat.cancel()
    let wasCurrent = state.withLock { state -> Bool in
      guard case .connected(let current) = state, current.connection === connected.connection
      else { return false }
      state = .connecting(waiters: [])
      return true
    }
    guard wasCurrent else { return }
    Self.logger.warning("\(settings): connection lost; reconnecting")
    delegate?.linkLost(.lost)
    connect(attempt: 1)
  }

  /// Connects, makes the schema when missing, listens, and starts the heartbeat.
  private func open() -> EventLoopFuture<Connected> {
    var configuration: PostgresConnection.Configuration
    do {
      configuration = PostgresConnection.Configuration(
        host: settings.host, port: settings.port, username: settings.user,
        password: settings.password, database: settings.database, tls: try tls())
    } catch {
      return loop.makeFailedFuture(PostgresFailure.connection("TLS: \(error)"))
    }
    configuration.options.connectTimeout = .seconds(3)
    // What `pg_stat_activity` shows a DBA: which program, and whose table.
    configuration.options.additionalStartupParameters = [
      ("application_name", "tether \(settings.table) \(ProcessInfo.processInfo.processName)")
    ]
    let connecting = PostgresConnection.connect(
      on: loop, configuration: configuration,
      id: Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue, logger: Self.logger)
    return connecting.flatMap { connection in
      self.prepare(connection).flatMapErrorThrowing { error in
        // The statement's error is what the caller is told; the connection is left behind.
        Self.abandon(connection)
        throw error
      }
    }
  }

  /// Makes the schema when missing, listens, and starts the heartbeat, on a new connection.
  private func prepare(_ connection: PostgresConnection) -> EventLoopFuture<Connected> {
    let statements = self.statements
    let schema = Self.run(statements.schema, on: connection)
    let process: EventLoopFuture<Int32> = schema.flatMap { _ in
      Self.run(statements.backendPID, on: connection)
    }.flatMapThrowing { rows in try rows.first?.decode(Int32.self) ?? 0 }
    let listening: EventLoopFuture<Int32> = process.flatMap { serverProcess in
      connection.addListener(channel: statements.channel) { [weak self] _, notification in
        guard let self, notification.backendPID != serverProcess else { return }
        self.delegate?.announced(notification.payload)
      }
      return Self.run(statements.listen, on: connection).map { _ in serverProcess }
    }
    return listening.map { serverProcess in
      let heartbeat = connection.eventLoop.scheduleRepeatedAsyncTask(
        initialDelay: .seconds(1), delay: .seconds(1)
      ) { _ -> EventLoopFuture<Void> in
        Self.run(statements.heartbeat, on: connection, deadline: .seconds(3)).map { _ in () }
          .recover { _ in () }
      }
      return Connected(connection: connection, serverProcess: serverProcess, heartbeat: heartbeat)
    }
  }

  /// Closes `connection` without waiting: it is being given up, and how its closing goes
  /// changes nothing.
  private static func abandon(_ connection: PostgresConnection) {
    let _: EventLoopFuture<Void> = connection.close()
  }

  private func tls() throws -> PostgresConnection.Configuration.TLS {
    switch settings.tls {
    case .disable: return .disable
    case .prefer, .require:
      var configuration = TLSConfiguration.makeClientConfiguration()
      configuration.certificateVerification = .none
      let context = try NIOSSLContext(configuration: configuration)
      return settings.tls == .prefer ? .prefer(context) : .require(context)
    }
  }
}
