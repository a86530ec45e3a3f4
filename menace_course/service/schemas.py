"""The JSON API's bodies as marshmallow schemas: they validate requests and document the API.

:mod:`.openapi` puts every schema named in :data:`DOCUMENTED` into ``/api/v1/openapi.json``.
"""

from __future__ import annotations

from collections.abc import Callable

from marshmallow import RAISE, Schema, ValidationError, fields, validate

from menace_course.wording import N_, reworded

#: The schemas the OpenAPI document lists (by class name, without the ``Schema`` suffix).
DOCUMENTED = ("CheckRequestSchema", "CheckAcceptedSchema", "CheckSchema", "ChallengeSchema", "ErrorSchema")


#: marshmallow's own sentences about a check request's fields, as message ids of the catalog
#: (its values by name), so a refusal of a malformed body is worded in the request's language.
FIELD_SENTENCES = (
    N_("Missing data for required field."),
    N_("Not a valid string."),
    N_("Unknown field."),
    N_("Field may not be null."),
    N_("Longer than maximum length %(max)s."),
    N_("Invalid input type."),
)


def invalid_fields(invalid: ValidationError, gettext: Callable[[str], str]) -> str:
    """What is wrong with each field of a body marshmallow refused, in ``gettext``'s language
    (a sentence of marshmallow's not in :data:`FIELD_SENTENCES` stays as marshmallow said it)."""
    said = {
        name: " ".join(reworded(str(m), gettext, FIELD_SENTENCES) for m in messages)
        for name, messages in sorted(invalid.messages_dict.items())
        if isinstance(messages, list)
    }
    return "; ".join(f"{name}: {words}" for name, words in said.items())


class CheckRequestSchema(Schema):
    """A submission to check."""

    class Meta:
        unknown = RAISE

    challenge = fields.String(
        required=True, metadata={"description": "The challenge's slug, e.g. after_game."}
    )
    filename = fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.Length(max=255),
        metadata={
            "description": "The file's name, ending in .py or .ipynb (default: SLUG.py, or SLUG.ipynb "
            "for a notebook)."
        },
    )
    source = fields.String(
        required=True,
        metadata={
            "description": "The file's text: Python, or a notebook's JSON (its code cells are the answer)."
        },
    )


class CheckAcceptedSchema(Schema):
    """A check was stored and queued."""

    id = fields.String(metadata={"description": "The attempt's id (a UUID)."})
    status = fields.String(validate=validate.OneOf(["queued", "running", "done"]))
    url = fields.String(metadata={"description": "Where to GET the check."})


class CheckSchema(Schema):
    """A check and, once done, its report."""

    id = fields.String()
    status = fields.String(validate=validate.OneOf(["queued", "running", "done"]))
    url = fields.String()
    challenge = fields.String()
    filename = fields.String()
    created_at = fields.String(metadata={"description": "ISO 8601, UTC."})
    report = fields.Raw(
        allow_none=True,
        metadata={
            "description": "null until done; then the same object as `menace check --format json` "
            "(schema `Report`)."
        },
    )
    feedback = fields.String(
        metadata={
            "description": "Only with ?format=text|markdown|html, once done: the report in words, "
            "exactly as `menace check --format FORMAT` prints it."
        },
    )


class ChallengeSchema(Schema):
    """One challenge of the course."""

    slug = fields.String()
    title = fields.String()
    stars = fields.Integer()
    function = fields.String()
    url = fields.String(metadata={"description": "The challenge's page."})


class ErrorSchema(Schema):
    """Every error: a short code and one sentence for a person."""

    error = fields.String(
        metadata={
            "description": "e.g. bad_request, unknown_challenge, bad_filename, unauthorized, forbidden, "
            "not_found, too_large, queue_full, too_many_waiting, rate_limited, too_soon, internal"
        }
    )
    message = fields.String()
