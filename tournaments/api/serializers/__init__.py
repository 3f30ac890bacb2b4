"""The tournaments API's serializers: ``inputs`` (strict) and ``outputs``."""
