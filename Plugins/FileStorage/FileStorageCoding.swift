import Foundation
public import Tether

/// How a registered file key writes its JSON: the `pretty` and `dates` options of its
/// `[strategy.NAME]` section, or of its own `[key.NAME]` section, which wins.
///
/// ```ini
/// [strategy.file]
/// # pretty-printed, sorted keys, ending with a newline: for files people edit
/// pretty = true
/// # dates as ISO 8601 text (2026-11-21T09:30:00Z) instead of seconds since 2001
/// dates = iso8601
///
/// [key.session]
/// pretty = false
/// ```
///
/// A file is read with the coding it is written with. Changing `dates` does not convert files
/// already written: a file holding seconds since 2001 read by a key whose `dates` is now
/// `iso8601` (or the other way round) fails to decode, which is a load error — the key shows
/// its default, its `loadError` names the file, and the file is kept beside it as
/// `NAME.corrupt-<UTC time>` before a write replaces it. ISO 8601 text holds whole seconds: a
/// fraction of a second is not written (text with one is still read).
///
/// Direct `.fileStorage(url)` keys take the coders they are given instead.
public struct FileStorageCoding: Sendable, Hashable, CustomStringConvertible {
  /// How dates are written.
  public enum Dates: String, Sendable, Hashable {
    /// A number: seconds since 1 January 2001, `JSONEncoder`'s default.
    case secondsSince2001 = "seconds-since-2001"
    /// Text such as `2026-11-21T09:30:00Z`.
    case iso8601
  }

  /// Pretty-printed, with sorted keys and a final newline, instead of one compact line.
  public var pretty: Bool
  /// How dates are written and read.
  public var dates: Dates

  /// `JSONEncoder`'s and `JSONDecoder`'s defaults: compact, dates as seconds since 2001.
  public static let `default` = FileStorageCoding(pretty: false, dates: .secondsSince2001)

  /// A coding with the given layout and dates.
  public init(pretty: Bool, dates: Dates) {
    self.pretty = pretty
    self.dates = dates
  }

  /// `options`' `pretty` and `dates`, each in place of this coding's when present.
  ///
  /// Throws `TetherError.invalidOption` at the option's `file:line` for a value neither
  /// accepts: `pretty` takes `true` or `false` (or `yes`/`no`, `on`/`off`, `1`/`0`), `dates`
  /// takes `iso8601` or `seconds-since-2001`.
  public func overridden(by options: StrategyOptions) throws -> FileStorageCoding {
    var coding = self
    if let pretty = try options.bool("pretty") { coding.pretty = pretty }
    if let dates = options["dates"] {
      guard let parsed = Dates(rawValue: dates) else {
        throw options.invalid(
          "dates", "expected iso8601 or seconds-since-2001, found \"\(dates)\"")
      }
      coding.dates = parsed
    }
    return coding
  }

  /// As the config writes it: `pretty false, dates seconds-since-2001`.
  public var description: String { "pretty \(pretty), dates \(dates.rawValue)" }

  /// An encoder and decoder that write and read this coding; the default coding's are the
  /// ones every direct key with default coders shares.
  var coders: JSONCoders {
    guard self != .default else {
      return JSONCoders(
        encoder: DefaultCoders.encoder, decoder: DefaultCoders.decoder, finalNewline: false)
    }
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()
    if pretty { encoder.outputFormatting = [.prettyPrinted, .sortedKeys] }
    if dates == .iso8601 {
      encoder.dateEncodingStrategy = .iso8601
      decoder.dateDecodingStrategy = .custom(Self.decodeISO8601)
    }
    return JSONCoders(encoder: encoder, decoder: decoder, finalNewline: pretty)
  }

  /// An ISO 8601 date, with or without a fraction of a second: what `.iso8601` writes, and
  /// what a person editing the file may write.
  @Sendable private static func decodeISO8601(_ decoder: any Decoder) throws -> Date {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    for style in [
      Date.ISO8601FormatStyle(), Date.ISO8601FormatStyle(includingFractionalSeconds: true),
    ] {
      do {
        return try style.parse(text)
      } catch {
        // Not in this form; the next is tried, and the error below says what was expected.
      }
    }
    throw DecodingError.dataCorruptedError(
      in: container, debugDescription: "expected an ISO 8601 date, found \"\(text)\"")
  }
}

/// One coding's thread-safe encoder and decoder, shared by the keys written with it.
struct JSONCoders: Sendable {
  let encoder: JSONEncoder
  let decoder: JSONDecoder
  /// Whether a written file ends with a newline, as a file people edit does.
  let finalNewline: Bool
}
