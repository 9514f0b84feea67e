/// How a file-backed key writes: its throttle window and how durable a write is.
public struct FileStorageSettings: Sendable, Equatable, CustomStringConvertible {
  /// What a completed write survives.
  public enum Durability: String, Sendable {
    /// Temp file, fsync, rename: a crash leaves the old or the new content, never a mix.
    case atomic
    /// Also fsyncs the folder, so the rename itself survives a power loss.
    case durable
  }

  /// Changes within this window after a write coalesce into one trailing write.
  public var throttle: Duration
  /// What a completed write survives.
  public var durability: Durability

  /// The built-in defaults, used by direct `.fileStorage(url)` keys: `1s`, `atomic`.
  public static let `default` = FileStorageSettings(throttle: .seconds(1), durability: .atomic)

  /// As the config writes them: `throttle 1s, durability atomic`.
  public var description: String {
    let milliseconds =
      throttle.components.seconds * 1000
      + throttle.components.attoseconds / 1_000_000_000_000_000
    let window = milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
    return "throttle \(window), durability \(durability.rawValue)"
  }

  /// Settings with the given window and durability.
  public init(throttle: Duration, durability: Durability) {
    self.throttle = throttle
    self.durability = durability
  }
}
