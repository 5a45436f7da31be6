"""Conversion entry points (`api`) and the converter pipeline (`conversion`)."""
