import Synchronization
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
    /// What this process's last write found in the file, or put there (see ``Merged``).
    var merged: Merged?
    var subscribers: [String: [UInt64: Subscriber]] = [:]
    var nextSubscriber: UInt64 = 0
    var watches: [FileWatch] = []
    /// What the holders of each subscribed key were last told it holds (by a load, a delivery or
    /// their own write): a change is delivered when the file's value differs from it, however
    /// the file came to be read.
    var told: [String: Lookup] = [:]
    /// The waiter of each key's changes taken inline (`withLock`'s), made at its holders' first
    /// subscription: its holders are told how the write went through their subscriptions.
    var inlineWaiters: [String: (group: InlineGroup, waiter: WriteWaiter)] = [:]
    /// Keys whose holders are being told a new value (how many holders are still to have it):
    /// a change of one made meanwhile was made before its holders saw that value, which wins.
    var delivering: [String: Int] = [:]
    /// The waiters of the changes refused for a delivery under way (see ``delivering``): told
    /// their conflict once that delivery has ended, so that no holder hears its change lost
    /// before it shows the value that won.
    var outrun: [String: [WriteWaiter]] = [:]
    /// The serial of the change this process's holders last made of each key, until the file's
    /// value reaches them instead: the base of their next change, whether the change before it
    /// is written yet or not. An object per key, never removed: a key's `withLock` changes
    /// keep theirs (see ``InlineKey``) and reach it without hashing the name.
    var given: [String: ChangeSerial] = [:]
    /// The serial of the next change.
    var nextSerial: UInt64 = 0
    /// The latest change of each key the writer took, by serial, and the literal it leaves the
    /// key at as far as this process's holders know: its own, or, for a value that had none
    /// (and was dropped), its base. A change made on top of it, whose base is that change (see
    /// ``Base/change(_:)``), is written after it, and finds it here.
    var taken: [String: (serial: UInt64, literal: INIValue?)] = [:]

    /// Numbers a change of `name` made now and notes that its holders gave it (`given`, its
    /// entry of ``given``); returns its serial and base (see ``PendingChange``). `nil` while
    /// its holders are being told a new value, which the change did not see: it is not to be
    /// written, and `waiter` is kept to be told the conflict once they have it (see
    /// ``outrun``).
    mutating func change(
      of name: String, given: ChangeSerial, orTell waiter: WriteWaiter
    ) -> (serial: UInt64, base: Base)? {
      if !delivering.isEmpty, delivering[name] != nil {
        outrun[name, default: []].append(waiter)
        return nil
      }
      let serial = nextSerial
      nextSerial += 1
      defer { given.serial = serial }
      if let previous = given.serial { return (serial, .change(previous)) }
      return (serial, .literal(userValue(name)))
    }

    /// One holder of `name` has the value it is being told (see ``delivering``).
    mutating func seen(_ name: String) {
      delivering[name, default: 1] -= 1
      if delivering[name] == 0 { delivering[name] = nil }
    }

    /// `name`'s entry of ``given``, made if need be.
    mutating func given(_ name: String) -> ChangeSerial {
      if let made = given[name] { return made }
      let made = ChangeSerial()
      given[name] = made
      return made
    }

    /// The literal `base` stands for.
    func literal(of base: Base, for name: String) -> INIValue? {
      switch base {
      case .literal(let literal): return literal
      case .change(let serial):
        if let taken = taken[name], taken.serial == serial { return taken.literal }
        // Not reached: the writer takes a change before any change made on top of it.
        return userValue(name)
      }
    }

    /// The value of `name`'s line in the user file as this process last saw it.
    func userValue(_ name: String) -> INIValue? {
      guard case .success(let parsed) = user else { return nil }
      return parsed.entries[name]?.value
    }
  }
}
