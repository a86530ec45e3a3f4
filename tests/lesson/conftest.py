"""Fixtures for the lesson's tests."""

from __future__ import annotations
