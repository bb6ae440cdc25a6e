import TidingsNotificationService

final class NotificationService: TidingsNotificationService {}
