import Tether
import TetherFiles
import TetherWatcher

/// What a defaults file's holders and writes share: the parsed files, the holders of each key,
/// what they were told and gave, and the watches.
extension DefaultsFile {
  struct State {
    var user: Result<Parsed, TetherError>
    var registration: Result<Parsed, TetherError>?
    /// The identities the parsed documents were read at: a load re-reads only a changed file.
    var userIdentity: FileIdentity?
    var registrationIdentity: FileIdentity?
    /// How many of this process's writes had landed when `user` was taken from the file (see
    /// ``FileWatch/ownWritesLanded``): a delivery read before that is older than `user`.
    var ownWritesLanded: UInt64 = 0
    var subscribers: [String: [UInt64: Subscriber]] = [:]
    var nextSubscriber: UInt64 = 0
    var watches: [FileWatch] = []
    /// What the holders of each subscribed key were last told it holds (by a load, a delivery or
    /// their own write): a change is delivered when the file's value differs from it, however
    /// the file came to be read.
    var told: [String: Lookup] = [:]
    /// The waiter of each key's changes taken inline (`withLock`'s), made at its first: its
    /// holders are told how the write went through their subscriptions.
    var inlineWaiters: [String: (group: InlineGroup, waiter: WriteWaiter)] = [:]
    /// Keys whose holders are being told a new value (how many deliveries are under way): a
    /// change of one made meanwhile was made before its holders saw that value, which wins.
    var delivering: [String: Int] = [:]
    /// The literal this process's holders last gave each key (`nil` inside: remove the line),
    /// until the file's value reaches them instead: the base of their next change, whether the
    /// change before it is written yet or not.
    var given: [String: INIValue?] = [:]

    /// The base of a change of `name` made now (see ``Change``); `nil` while its holders are
    /// being told a new value, which the change did not see.
    func base(of name: String) -> INIValue?? {
      if !delivering.isEmpty, delivering[name] != nil { return nil }
      if let literal = given[name] { return .some(literal) }
      return .some(userValue(name))
    }

    /// Notes that the holders gave `name` the value `literal`; returns the change's base (see
    /// ``base(of:)``), `nil` when the change is not to be written.
    mutating func given(_ literal: INIValue?, to name: String) -> INIValue?? {
      guard let base = base(of: name) else { return nil }
      given[name] = .some(literal)
      return base
    }

    /// The value of `name`'s line in the user file as this process last saw it.
    func userValue(_ name: String) -> INIValue? {
      guard case .success(let parsed) = user else { return nil }
      return parsed.entries[name]?.value
    }
  }
}
