"""LTI 1.3: the tool against a test LMS (tests/lti/lms), login to gradebook."""
