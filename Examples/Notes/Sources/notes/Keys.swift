import Tether

// The app's keys, each declared once by name, type and default. Where each one lives comes from
// the config file (Config/tether.conf): launches in defaults.ini, notes in a JSON file, motd in
// a one-value file of the envdir folder.

extension SharedKey where Self == RegisteredKey<Int>.Default {
  /// How many times `notes` has started.
  static var launches: Self { Self[.registered("launches"), default: 0] }
}

extension SharedKey where Self == RegisteredKey<[Note]>.Default {
  /// The notes, oldest first.
  static var notes: Self { Self[.registered("notes"), default: []] }
}

extension SharedKey where Self == RegisteredKey<String>.Default {
  /// The message `notes` shows when it starts.
  static var motd: Self { Self[.registered("motd"), default: "Welcome to notes."] }
}

/// Every key of the app, with a line on what it is for: handed to `bootstrap`, which checks
/// them against the config, and to `notes settings`, which reads and writes each as its type.
let keys: [KeyDeclaration] = [
  .key(.launches, "How many times notes has started."),
  .key(.notes, "The notes, oldest first."),
  .key(.motd, "The message notes shows when it starts."),
]
