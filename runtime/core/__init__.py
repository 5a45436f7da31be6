"""(layer docstring written in the next commit)"""
