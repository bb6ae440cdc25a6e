import Testing
import Tidings

@Suite struct AutomaticIntegrationPlanTests {
    @Test func byDefaultTheProxyIsInstalledAndChainsTheDelegateItReplaces() {
        let plan = AutomaticIntegrationPlan(options: AutomaticIntegrationOptions(), existing: .other)
        #expect(plan.installsProxy)
        #expect(plan.chainsExistingDelegate)
        #expect(plan.registersForRemoteNotifications)
        #expect(!plan.requestsAuthorization)
        #expect(
            !AutomaticIntegrationPlan(options: AutomaticIntegrationOptions(), existing: .unset).chainsExistingDelegate)
    }

    @Test func aSecondRunKeepsTheProxyInPlaceInsteadOfChainingItToItself() {
        let plan = AutomaticIntegrationPlan(options: AutomaticIntegrationOptions(), existing: .tidings)
        #expect(!plan.installsProxy)
        #expect(!plan.chainsExistingDelegate)
    }

    @Test func anAppThatRefusesTheProxyKeepsItsDelegateAndStillRegisters() {
        let options = AutomaticIntegrationOptions(
            installsNotificationDelegateProxy: false, requestsAuthorizationAtLaunch: true)
        let plan = AutomaticIntegrationPlan(options: options, existing: .other)
        #expect(!plan.installsProxy)
        #expect(!plan.chainsExistingDelegate)
        #expect(plan.requestsAuthorization)
        #expect(plan.registersForRemoteNotifications)
    }

    @Test func theInfoPlistSwitchesAreRead() throws {
        let base: [String: Any] = ["TidingsAppKey": "tk_app_1", "TidingsServerURL": "https://push.example.com"]
        let defaults = try TidingsClient.Configuration(infoPlist: base)
        #expect(defaults.automaticIntegration == AutomaticIntegrationOptions())
        var refusing = base
        refusing["TidingsNotificationDelegateProxyEnabled"] = "NO"
        refusing["TidingsRequestAuthorizationAtLaunch"] = true
        let configuration = try TidingsClient.Configuration(infoPlist: refusing)
        #expect(!configuration.automaticIntegration.installsNotificationDelegateProxy)
        #expect(configuration.automaticIntegration.requestsAuthorizationAtLaunch)
        var wrong = base
        wrong["TidingsNotificationDelegateProxyEnabled"] = 7
        #expect(throws: ConfigurationError.self) { try TidingsClient.Configuration(infoPlist: wrong) }
    }

    /// Issue #34 (what an iOS team expects): provisional authorization, asked at launch since it shows no
    /// prompt, and the link to the app's own notification settings.
    @Test func provisionalAndAppSettingsAreAskedForWhenConfigured() throws {
        var plist: [String: Any] = ["TidingsAppKey": "tk_app_1", "TidingsServerURL": "https://push.example.com"]
        plist["TidingsRequestProvisionalAuthorization"] = "YES"
        plist["TidingsProvidesAppNotificationSettings"] = true
        let options = try TidingsClient.Configuration(infoPlist: plist).automaticIntegration
        let plan = AutomaticIntegrationPlan(options: options, existing: .unset)
        #expect(plan.requestsAuthorization)
        #expect(plan.authorizationOptions == [.alert, .sound, .badge, .provisional, .providesAppNotificationSettings])
        let plain = AutomaticIntegrationPlan(options: AutomaticIntegrationOptions(), existing: .unset)
        #expect(!plain.requestsAuthorization)
        #expect(plain.authorizationOptions == [.alert, .sound, .badge])
    }
}
