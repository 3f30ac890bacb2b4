"""The API: Django REST framework (authentication, parsers, pagination, throttle rates)
and drf-spectacular's schema.
"""

from cya_site.env import env_int, env_rate

# --- Django REST framework -------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Closed by default; endpoints open to anonymous clients say so themselves.
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # DRF's JSON parser, refusing bodies nested past MAX_JSON_DEPTH before decoding them
    "DEFAULT_PARSER_CLASSES": ["cya_site.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": [
        "cya_site.json_renderer.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PAGINATION_CLASS": "cya_site.pagination.PageNumberPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    # one round trip for every limit of a request (cya_site/throttling.py)
    "DEFAULT_THROTTLE_CLASSES": ["cya_site.throttling.RequestRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_rate("THROTTLE_ANON", "120/min"),
        "user": env_rate("THROTTLE_USER", "6000/min"),
        "auth": env_rate("THROTTLE_AUTH", "10/min"),
        # bots answer many decisions a minute; one seat can hardly need more than this
        "actions": env_rate("THROTTLE_ACTIONS", "6000/min"),
        "wait": env_rate("THROTTLE_WAIT", "600/min"),
        # guests made by the pages ("Play as a guest"), per client address
        "guest": env_rate("THROTTLE_GUEST", "20/hour"),
        # mails sent (password resets, address confirmations), and account changes
        "mail": env_rate("THROTTLE_MAIL", "5/hour"),
        # mails one address receives, however many clients ask (accounts.lifecycle)
        "mail_to": env_rate("THROTTLE_MAIL_TO", "3/hour"),
        "account": env_rate("THROTTLE_ACCOUNT", "30/hour"),
    },
    # 0: throttles identify clients by REMOTE_ADDR and ignore a spoofable X-Forwarded-For.
    "NUM_PROXIES": env_int("NUM_PROXIES", 0, minimum=0),
    "EXCEPTION_HANDLER": "cya_site.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Cover Your Assets platform API",
    "DESCRIPTION": "Games, bots and tournaments for the card game Cover Your Assets.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # every number in a path is <id:...> (cya_site.routes): an integer up to routes.MAX_ID
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}},
    # one name per choice set that several serializers share
    "ENUM_NAME_OVERRIDES": {
        "DecisionKindEnum": "games.engine.state.DECISION_NAMES",
        "GameStatusEnum": "games.models.Game.Status",
        "BotKindEnum": "bots.models.Bot.Kind",
        "MatchKindEnum": "bots.models.Match.Kind",
        "MatchStatusEnum": "bots.models.Match.Status",
        "VersionStatusEnum": "bots.models.BotVersion.Status",
        "StrikeReasonEnum": "bots.models.Strike.Reason",
        "CompetitionKindEnum": "tournaments.models.Competition.Kind",
        "TournamentFormatEnum": "tournaments.models.Tournament.Format",
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        "RoundStatusEnum": "tournaments.models.TournamentRound.Status",
        "RecordStatusEnum": "tournaments.models.ScoreRecord.Status",
        "RecordKindEnum": "tournaments.models.ScoreRecord.Kind",
        "SubstitutePolicyEnum": "tournaments.models.SubstitutePolicy",
        "PenaltyKindEnum": "tournaments.models.Penalty.Kind",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.api.stream_schema.document_stream",  # an async view, outside DRF
        "cya_site.schema.add_error_responses",
        "cya_site.schema.text_input_rules",
    ],
}
