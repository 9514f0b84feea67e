import PostgresNIO

/// Why a statement or a connection failed, in words a user can act on, and whether trying
/// again later can help.
///
/// postgres-nio's own errors describe themselves with a fixed text (so that a query's values
/// never reach a log): the server's message, SQLSTATE and the connection's cause are read out
/// of them here instead. The password is in none of them.
enum PostgresFailure: Error, Sendable, CustomStringConvertible {
  /// The store was shut down (``PostgresStrategy/shutdown()``), or is going.
  case closed
  /// The connection dropped.
  case lost
  /// The server refused a statement: `state` is its SQLSTATE.
  case server(state: String, message: String, detail: String?)
  /// No connection could be made, or it broke, for this reason.
  case connection(String)

  init(_ error: any Error) {
    if let failure = error as? PostgresFailure {
      self = failure
      return
    }
    guard let error = error as? PSQLError else {
      self = .connection("\(error)")
      return
    }
    switch error.code {
    case .server:
      let info = error.serverInfo
      self = .server(
        state: info?[.sqlState] ?? "?????", message: info?[.message] ?? "no message",
        detail: info?[.detail])
    case .serverClosedConnection, .uncleanShutdown,
      // This side closed it: a statement past its deadline (a cut network), or a store going.
      .clientClosedConnection:
      self = .lost
    case .sslUnsupported:
      self = .connection("the server does not offer TLS, and tls = require")
    case .authMechanismRequiresPassword:
      self = .connection("the server asks for a password; name a password-file")
    case .connectionError:
      self = .connection(error.underlying.map { "\($0)" } ?? "cannot connect")
    default:
      self = .connection(error.underlying.map { "\(error.code): \($0)" } ?? "\(error.code)")
    }
  }

  var description: String {
    switch self {
    case .closed: return "the store was shut down"
    case .lost: return "the connection was lost"
    case .server(let state, let message, let detail):
      return message + (detail.map { " (\($0))" } ?? "") + " [SQLSTATE \(state)]"
    case .connection(let reason): return reason
    }
  }

  /// Whether the server refused the statement itself (a value too large, a constraint), so
  /// that sending it again cannot help; otherwise the link failed, and it can.
  var isRefusal: Bool {
    guard case .server(let state, _, _) = self else { return false }
    // 08: connection exception; 53: insufficient resources; 57: operator intervention (a
    // server shutting down); 40: serialization failure or deadlock. The rest are about what
    // was sent.
    return !["08", "53", "57", "40"].contains(String(state.prefix(2)))
  }
}
