/// Facts about a number, made here: the demo needs no network.
enum FactGenerator {
  static func fact(about number: Int) -> String {
    var facts = [
      "\(number) is \(number.isMultiple(of: 2) ? "even" : "odd").",
      "\(number) in binary is \(String(number, radix: 2)).",
      "\(number) squared is \(number.multipliedReportingOverflow(by: number).partialValue).",
      "\(number) in hexadecimal is 0x\(String(number, radix: 16, uppercase: true)).",
    ]
    if number > 1 {
      facts.append("\(number) is \(isPrime(number) ? "a prime number" : "not a prime number").")
    }
    if let root = perfectSquareRoot(number) { facts.append("\(number) is \(root) squared.") }
    return facts.randomElement() ?? "\(number) is a number."
  }

  private static func isPrime(_ number: Int) -> Bool {
    guard number > 3 else { return number > 1 }
    guard !number.isMultiple(of: 2), !number.isMultiple(of: 3) else { return false }
    var divisor = 5
    while divisor * divisor <= number {
      if number.isMultiple(of: divisor) || number.isMultiple(of: divisor + 2) { return false }
      divisor += 6
    }
    return true
  }

  private static func perfectSquareRoot(_ number: Int) -> Int? {
    guard number >= 0 else { return nil }
    let root = Int(Double(number).squareRoot())
    return root * root == number ? root : nil
  }
}
