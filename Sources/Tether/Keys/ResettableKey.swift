/// A key whose stored value can be removed, so that every holder shows its default again: what
/// ``Shared/reset()`` needs.
///
/// ```swift
/// try await $theme.reset()   // the line is gone from defaults.ini; holders show the default
/// ```
///
/// Tether's memory, file and defaults keys conform, and a registered key forwards to the key it
/// resolves to. An app's own key conforms the way it conforms to `SharedKey`, and
/// `StrategyConformance` then checks it.
public protocol ResettableKey<Value>: SharedKey {
  /// Removes what the store holds for this key.
  ///
  /// In order:
  /// 1. Make sure no change of this key that this process made earlier lands after the removal:
  ///    write a pending (throttled) change first, or drop it. If that write fails, throw.
  /// 2. Under the store's cross-process lock where it has one, remove the stored value: delete
  ///    the file, remove the line, clear the cell, delete the row. Nothing stored is success.
  /// 3. Call `stored` with what a load finds now: `nil` when nothing stands for the key (its
  ///    holders show their default), or a value that still does (a defaults file's registration
  ///    value). Call it before anything the store delivers after the removal can reach the
  ///    key's subscribers: it updates this process's holders.
  /// 4. Let go of the lock.
  ///
  /// Tether calls this on a thread of its own, with this process's other changes of the value
  /// held back until it returns.
  func reset(stored: (Value?) -> Void) throws
}
