extension Double {
    /// Rounded to 4 decimal places: how rates, intervals and z values are shown, so a stored winner decision and
    /// the stats the API computes afresh agree digit for digit.
    public var roundedToFourPlaces: Double { (self * 10_000).rounded() / 10_000 }
}
