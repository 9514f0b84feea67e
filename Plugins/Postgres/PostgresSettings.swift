import Foundation
public import Tether

/// Where a `postgres` strategy keeps its values, and how it writes them: what its
/// `[strategy.postgres]` section says.
///
/// The password is never part of the description, of an error or of a log line.
public struct PostgresSettings: Sendable, Hashable, CustomStringConvertible {
  /// How the connection is encrypted.
  public enum TLS: String, Sendable, Hashable {
    /// Plain TCP.
    case disable
    /// TLS when the server offers it, plain TCP otherwise.
    case prefer
    /// TLS, or no connection. As with libpq's `sslmode=require`, the server's certificate is
    /// not verified: the link is encrypted, not authenticated.
    case require
  }

  /// The server's host name or address.
  public let host: String
  /// The server's TCP port.
  public let port: Int
  /// The role to connect as.
  public let user: String
  /// The database.
  public let database: String
  /// How the connection is encrypted.
  public let tls: TLS
  /// The table of values.
  public let table: String
  /// The channel changes are announced on.
  public let channel: String
  /// The throttle window of `withLock` changes: the first is written at once, later ones in
  /// the window merge into one trailing write.
  public let throttle: Duration
  /// The password, read from the `password-file`; not part of equality, hashing or any text.
  let password: String?

  /// `postgres://user@host:port/database`, table `tether_values`.
  public var description: String {
    "postgres://\(user)@\(hostForURL):\(port)/\(database) table \(table)"
  }

  private var hostForURL: String { host.contains(":") ? "[\(host)]" : host }

  /// Reads `url`, `password-file`, `tls`, `table`, `channel` and `throttle`.
  public init(options: StrategyOptions) throws {
    guard let url = options["url"] else {
      throw options.invalid("url", "is required: postgres://user@host:port/database")
    }
    (host, port, user, database) = try Self.endpoint(url, options: options)
    switch options["tls"] {
    case nil, "disable": tls = .disable
    case "prefer": tls = .prefer
    case "require": tls = .require
    case let other?:
      throw options.invalid("tls", "expected disable, prefer or require, found \"\(other)\"")
    }
    table = try Self.identifier("table", options["table"] ?? "tether_values", options: options)
    channel = try Self.identifier("channel", options["channel"] ?? table, options: options)
    throttle = try options.duration("throttle") ?? .milliseconds(100)
    password = try options.path("password-file").map { try Self.password(at: $0, options) }
  }

  /// Settings are equal when they name the same server, table and channel, with the same
  /// encryption and throttle; the password is left out.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    (lhs.host, lhs.port, lhs.user, lhs.database) == (rhs.host, rhs.port, rhs.user, rhs.database)
      && (lhs.tls, lhs.table, lhs.channel, lhs.throttle)
        == (rhs.tls, rhs.table, rhs.channel, rhs.throttle)
  }

  /// Feeds the server and the table to `hasher`.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(host)
    hasher.combine(port)
    hasher.combine(database)
    hasher.combine(table)
  }

  private static func endpoint(
    _ text: String, options: StrategyOptions
  ) throws -> (String, Int, String, String) {
    let form = "postgres://user@host:port/database"
    guard let url = URLComponents(string: text),
      url.scheme == "postgres" || url.scheme == "postgresql"
    else {
      throw options.invalid("url", "\"\(text)\" is not a URL of the form \(form)")
    }
    if url.password != nil {
      throw options.invalid(
        "url", "holds a password; put it in a file of mode 0600 named by password-file")
    }
    guard let host = url.host, !host.isEmpty else {
      throw options.invalid("url", "\"\(text)\" names no host (\(form))")
    }
    guard let user = url.user, !user.isEmpty else {
      throw options.invalid("url", "\"\(text)\" names no user (\(form))")
    }
    if url.query != nil || url.fragment != nil {
      throw options.invalid("url", "takes no query; use the options tls and password-file")
    }
    let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
    let port = url.port ?? 5432
    guard (1...65535).contains(port) else {
      throw options.invalid("url", "port \(port) is not between 1 and 65535")
    }
    return (host.trimmingCharacters(in: ["[", "]"]), port, user, path.isEmpty ? user : path)
  }

  /// A table or channel name: one plain SQL identifier, written quoted.
  private static func identifier(
    _ option: String, _ name: String, options: StrategyOptions
  ) throws -> String {
    let first = name.unicodeScalars.first
    let valid =
      first.map { $0 == "_" || ("a"..."z").contains($0) } == true && name.utf8.count <= 40
      && name.unicodeScalars.allSatisfy {
        $0 == "_" || ("a"..."z").contains($0) || ("0"..."9").contains($0)
      }
    guard valid else {
      throw options.invalid(
        option,
        "\"\(name)\" is not a plain SQL name: lower-case letters, digits and _, "
          + "not starting with a digit, at most 40 bytes")
    }
    return name
  }

  /// The first line of the file at `url`, which must be readable by its owner alone.
  private static func password(at url: URL, _ options: StrategyOptions) throws -> String {
    let attributes: [FileAttributeKey: Any]
    do {
      attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    } catch {
      throw options.invalid(
        "password-file", "\(url.path) cannot be read: \(error.localizedDescription)")
    }
    let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0o777
    guard mode & 0o077 == 0 else {
      throw options.invalid(
        "password-file",
        "\(url.path) has mode \(String(mode, radix: 8)), so others may read it; "
          + "chmod 600 \(url.path)")
    }
    let text: String
    do {
      text = try String(contentsOf: url, encoding: .utf8)
    } catch {
      throw options.invalid(
        "password-file", "\(url.path) cannot be read: \(error.localizedDescription)")
    }
    let line = text.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
    guard !line.isEmpty else { throw options.invalid("password-file", "\(url.path) is empty") }
    return String(line)
  }
}
