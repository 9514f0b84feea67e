/// What this process knows of one row: pure state, kept under the row's lock.
///
/// A row's content is compared as the server writes it back (`value::text` of its `jsonb`), so
/// a row that moved to the content this process already knows (another process writing the
/// same value again) is not news: holders are not told, and a change of this process made over
/// it is not a conflict.
struct RowKnowledge: Sendable {
  /// The newest version read or written.
  var version: Int64 = 0
  /// The row's JSON at ``version``; `nil`: no row.
  var json: String?
  /// Counts the times holders were told a value from elsewhere, as they start being told and
  /// as each has it (see ``told()``): a change made before the last of them was made over a
  /// value that is no longer the row's, and is stale.
  var epoch: UInt64 = 0
  /// Writes of this process under way: announcements wait for them.
  var writing = 0
  /// The newest announcement that waited for a write.
  var waitingAnnouncement: Int64 = 0
  /// This process's last change written by its writer. A change of the same JSON and epoch
  /// (made before holders were told anything since: a holder's `save()` after its `withLock`)
  /// finds it written: written again it could only be refused, if the row moved since, and
  /// its caller told "dropped" of a value that was written.
  var lastWrite: RowChange?

  /// Takes what a read after an announcement (of `announced`) or a reconnect found: what
  /// holders are to be told, or `nil` when it is nothing new to them.
  mutating func learn(
    _ found: (json: String, version: Int64)?, announced: Int64? = nil
  ) -> RowContent? {
    guard let found else {
      // No row: a deletion, whose version is the announcement's.
      if let announced { version = max(version, announced) }
      guard json != nil else { return nil }
      json = nil
      epoch += 1
      return .missing
    }
    guard found.version > version else { return nil }
    version = found.version
    guard found.json != json else { return nil }
    json = found.json
    epoch += 1
    return .json(found.json)
  }

  /// Takes what a load found, which goes to holders as a load (not as news).
  mutating func loaded(_ found: (json: String, version: Int64)?) {
    guard let found, found.version > version else { return }
    (version, json) = (found.version, found.json)
  }

  /// A holder has what ``learn(_:announced:)`` found, and has made no change since: one made
  /// while it was being told was made before it saw the value, and is stale too.
  mutating func told() {
    epoch += 1
  }

  /// This process wrote `json` (as the server wrote it back) as `written`.
  mutating func wrote(_ written: Int64, json: String) {
    guard written > version else { return }
    (version, self.json) = (written, json)
  }
}
