@_exported import TidingsModel
