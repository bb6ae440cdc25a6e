import Foundation
import TidingsModel

extension TidingsClient {
    /// Records `token_register` for a token the installation did not have before (seed 002's event), with
    /// the environment and permission it was registered under. The event travels through the durable
    /// queue, so it is counted even when the registration itself is still waiting for the network.
    func recordTokenChange(from previous: DeviceToken?, to current: DeviceToken?, state: InstallationState) {
        guard let current, current != previous else { return }
        record([stateEvent(.tokenRegister, state: state, token: current.value, tokenType: current.type)])
    }

    /// Records `token_unregister` for a token that stopped being valid, with the state it had.
    func recordTokenRemoval(_ token: DeviceToken, state: InstallationState) {
        record([stateEvent(.tokenUnregister, state: state, token: token.value, tokenType: token.type)])
    }

    /// Records `permission_change` when the notification permission differs from the one known before.
    func recordPermissionChange(from previous: NotificationPermission?, to state: InstallationState) {
        guard let permission = state.permission, permission != previous else { return }
        record([stateEvent(.permissionChange, state: state, token: nil, tokenType: nil)])
    }

    private func stateEvent(_ type: EventType, state: InstallationState, token: String?, tokenType: TokenType?)
        -> TidingsEvent
    {
        TidingsEvent(
            type: type, occurredAt: configuration.clock.now.millisecondsSince1970, installationID: installationID,
            sdkVersion: configuration.sdkVersion, appVersion: configuration.appVersion,
            osVersion: configuration.osVersion, deviceModel: configuration.deviceModel, userID: userID,
            source: .app, token: token, tokenType: tokenType, environment: state.environment?.rawValue,
            permission: state.permission?.rawValue)
    }
}
