package import Logging

extension Logger {
  /// The core module's logger; plugins log under `tether.<module>`.
  package static let tether = Logger(label: "tether.core")
}
