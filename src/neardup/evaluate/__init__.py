"""Evaluation on labelled data: precision, recall and F1 per method and threshold.

With bootstrap intervals, seconds and peak memory, on the labelled sets of ``../shared``.
"""
