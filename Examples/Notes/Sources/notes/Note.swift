import Foundation

/// A note: what was written, and when.
///
/// Stored as `{"date":"2026-11-21T09:30:00Z","text":"Buy milk."}`: the date in ISO 8601, to
/// the second, so that the notes file and `notes settings get notes` read as a person writes
/// them, and a value set by hand is one this type reads.
struct Note: Codable, Sendable, Equatable {
  var text: String
  /// When the note was written, to the second (what the file keeps).
  var date: Date

  init(text: String, date: Date = Date()) {
    self.text = text
    self.date = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
  }

  private enum CodingKeys: String, CodingKey {
    case text
    case date
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    text = try container.decode(String.self, forKey: .text)
    let stamp = try container.decode(String.self, forKey: .date)
    do {
      date = try Date(stamp, strategy: .iso8601)
    } catch {
      throw DecodingError.dataCorruptedError(
        forKey: .date, in: container,
        debugDescription: "expected a date such as 2026-11-21T09:30:00Z, found \"\(stamp)\"")
    }
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(text, forKey: .text)
    try container.encode(date.formatted(.iso8601), forKey: .date)
  }
}
