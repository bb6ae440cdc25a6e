extension InstallationRegistrar {
    /// The server's code for a user whose data was erased since this device logged in (409).
    static let userErasedCode = "user_erased"

    /// Whether `response` refuses to bind an erased user.
    static func refusesErasedUser(_ response: TransportResponse) -> Bool {
        guard !response.isSuccess, case .rejected(409, userErasedCode, _) = RegistrationError.from(response) else {
            return false
        }
        return true
    }

    /// The server erased the user this device is logged in as: the device is logged out here too (its user
    /// token goes with it), and the server already holds no user for it, so the logout needs no proof. The
    /// rest of the state (tokens, attributes, context) then goes without the user instead of waiting forever.
    func forgetErasedUser(_ response: TransportResponse) {
        let error = RegistrationError.from(response)
        logger.warning("the server erased this user's data: logged out", metadata: ["error": error.description])
        userToken = nil
        record.acknowledgedUserID = nil
        change { $0.userID = nil }
    }
}
