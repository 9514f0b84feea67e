extension Duration {
  /// The duration in whole nanoseconds (negative durations are not used).
  var nanoseconds: UInt64 {
    let (seconds, attoseconds) = components
    return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
  }
}
