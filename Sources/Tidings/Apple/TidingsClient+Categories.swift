#if canImport(UIKit) && canImport(UserNotifications)
    import Foundation
    import UserNotifications

    /// Button categories between ``CategoryDefinition`` and UserNotifications, for the app and the extension.
    extension TidingsClient {
        /// Registers the app's own button categories, keeping every other registered category (the
        /// extension's, another SDK's) exactly as it is, and waits until iOS confirms them.
        ///
        /// - Returns: whether iOS confirmed the registration within the timeout.
        @discardableResult
        public func registerCategories(_ categories: [CategoryDefinition]) async -> Bool {
            await CategoryRegistration().register(categories, in: UserNotificationsCategoryCenter())
        }

        /// A ``CategoryDefinition`` as a `UNNotificationCategory`.
        public static func category(_ definition: CategoryDefinition) -> UNNotificationCategory {
            var options: UNNotificationCategoryOptions = []
            if definition.options.contains(.customDismissAction) { options.insert(.customDismissAction) }
            if definition.options.contains(.allowInCarPlay) { options.insert(.allowInCarPlay) }
            return UNNotificationCategory(
                identifier: definition.id, actions: definition.actions.map(action), intentIdentifiers: [],
                options: options)
        }

        /// An ``ActionDefinition`` as a `UNNotificationAction`, or a `UNTextInputNotificationAction` for a reply.
        public static func action(_ definition: ActionDefinition) -> UNNotificationAction {
            var options: UNNotificationActionOptions = []
            if definition.options.contains(.foreground) { options.insert(.foreground) }
            if definition.options.contains(.destructive) { options.insert(.destructive) }
            if definition.options.contains(.authenticationRequired) { options.insert(.authenticationRequired) }
            guard let input = definition.textInput else {
                return UNNotificationAction(identifier: definition.id, title: definition.title, options: options)
            }
            return UNTextInputNotificationAction(
                identifier: definition.id, title: definition.title, options: options,
                textInputButtonTitle: input.buttonTitle, textInputPlaceholder: input.placeholder)
        }

        /// The categories registered now, as definitions, for ``NotificationServiceRequest/registeredCategories``.
        public static func definitions(_ categories: Set<UNNotificationCategory>) -> [CategoryDefinition] {
            categories.sorted { $0.identifier < $1.identifier }.map { category in
                var options: CategoryDefinition.Options = []
                if category.options.contains(.customDismissAction) { options.insert(.customDismissAction) }
                if category.options.contains(.allowInCarPlay) { options.insert(.allowInCarPlay) }
                let actions = category.actions.map { action in
                    var actionOptions: ActionDefinition.Options = []
                    if action.options.contains(.foreground) { actionOptions.insert(.foreground) }
                    if action.options.contains(.destructive) { actionOptions.insert(.destructive) }
                    if action.options.contains(.authenticationRequired) {
                        actionOptions.insert(.authenticationRequired)
                    }
                    let input = (action as? UNTextInputNotificationAction).map {
                        ActionDefinition.TextInput(
                            placeholder: $0.textInputPlaceholder, buttonTitle: $0.textInputButtonTitle)
                    }
                    return ActionDefinition(
                        id: action.identifier, title: action.title, options: actionOptions, textInput: input)
                }
                return CategoryDefinition(id: category.identifier, actions: actions, options: options)
            }
        }

    }
#endif
