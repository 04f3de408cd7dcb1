"""The built-in tools' descriptions and parameter schemas, generated from their functions.

Do not edit: tests/tools/test_builtin.py regenerates this file from them and fails when it differs
(`UPDATE_SNAPSHOTS=1 python -m pytest tests/tools/test_builtin.py` rewrites it). A constant, so that
listing the tools or sending their schemas imports no Pydantic.
"""

# ruff: noqa: E501  (generated: descriptions stay on one line, as the model reads them)

from __future__ import annotations

import json
from typing import Any

BUILTIN_SCHEMAS: dict[str, dict[str, Any]] = json.loads(
    r"""
{
  "read_file": {
    "description": "Read a text file in the workspace as numbered lines.",
    "parameters": {
      "additionalProperties": false,
      "properties": {
        "path": {
          "description": "Relative to the workspace root",
          "type": "string"
        },
        "offset": {
          "default": 0,
          "description": "Lines to skip",
          "minimum": 0,
          "type": "integer"
        },
        "limit": {
          "default": 200,
          "description": "Lines to show",
          "maximum": 500,
          "minimum": 1,
          "type": "integer"
        }
      },
      "required": [
        "path"
      ],
      "type": "object"
    }
  },
  "list_files": {
    "description": "List the files under a directory, recursively, .gitignored ones left out.",
    "parameters": {
      "additionalProperties": false,
      "properties": {
        "path": {
          "default": ".",
          "description": "Directory",
          "type": "string"
        },
        "pattern": {
          "default": "",
          "description": "Glob, e.g. **/*.py",
          "type": "string"
        },
        "limit": {
          "default": 200,
          "maximum": 1000,
          "minimum": 1,
          "type": "integer"
        }
      },
      "type": "object",
      "required": []
    }
  },
  "search_text": {
    "description": "Search text files for a Python regular expression (no lookarounds or backreferences); one PATH:LINE: TEXT line per match.",
    "parameters": {
      "additionalProperties": false,
      "properties": {
        "pattern": {
          "type": "string"
        },
        "path": {
          "default": ".",
          "description": "File or directory",
          "type": "string"
        },
        "glob": {
          "default": "",
          "description": "Files to search, e.g. **/*.py",
          "type": "string"
        },
        "ignore_case": {
          "default": false,
          "type": "boolean"
        },
        "limit": {
          "default": 50,
          "maximum": 500,
          "minimum": 1,
          "type": "integer"
        }
      },
      "required": [
        "pattern"
      ],
      "type": "object"
    }
  },
  "edit_file": {
    "description": "Replace old_text with new_text in a file you have read; old_text must occur exactly once unless replace_all.",
    "parameters": {
      "additionalProperties": false,
      "properties": {
        "path": {
          "description": "Relative to the workspace root",
          "type": "string"
        },
        "old_text": {
          "description": "Exact text to replace, with enough lines around it to be unique",
          "type": "string"
        },
        "new_text": {
          "description": "Its replacement",
          "type": "string"
        },
        "replace_all": {
          "default": false,
          "description": "Replace every occurrence",
          "type": "boolean"
        }
      },
      "required": [
        "path",
        "old_text",
        "new_text"
      ],
      "type": "object"
    }
  },
  "write_file": {
    "description": "Create a file (and its directories) or replace all its text; read an existing file first.",
    "parameters": {
      "additionalProperties": false,
      "properties": {
        "path": {
          "description": "Relative to the workspace root",
          "type": "string"
        },
        "content": {
          "description": "The whole new text",
          "type": "string"
        }
      },
      "required": [
        "path",
        "content"
      ],
      "type": "object"
    }
  },
  "run_command": {
    "description": "Run a shell command in the workspace root, stdin empty, no network unless the user allowed it. Returns the exit code and the output (stdout and stderr merged; long output keeps its start and end).",
    "parameters": {
      "additionalProperties": false,
      "properties": {
        "command": {
          "description": "Run by /bin/sh -c",
          "type": "string"
        },
        "timeout": {
          "default": 120,
          "description": "Seconds before it is killed",
          "maximum": 600,
          "minimum": 1,
          "type": "integer"
        }
      },
      "required": [
        "command"
      ],
      "type": "object"
    }
  },
  "calculator": {
    "description": "Evaluate arithmetic exactly: + - * / // % ** ( ); sqrt log log10 exp sin cos tan (radians) abs round floor ceil min max; constants pi, e.",
    "parameters": {
      "additionalProperties": false,
      "properties": {
        "expr": {
          "description": "e.g. (2 + 3) * sqrt(16)",
          "type": "string"
        }
      },
      "required": [
        "expr"
      ],
      "type": "object"
    }
  },
  "update_plan": {
    "description": "Set your plan: every step with its status, at most one in_progress. Call it again as steps get done; your answer is checked against it.",
    "parameters": {
      "$defs": {
        "PlanItem": {
          "description": "One step of the plan.",
          "properties": {
            "step": {
              "description": "What to do",
              "minLength": 1,
              "type": "string"
            },
            "status": {
              "enum": [
                "pending",
                "in_progress",
                "completed"
              ],
              "type": "string"
            }
          },
          "required": [
            "step",
            "status"
          ],
          "type": "object"
        }
      },
      "additionalProperties": false,
      "properties": {
        "steps": {
          "description": "All steps, in order",
          "items": {
            "$ref": "#/$defs/PlanItem"
          },
          "minItems": 1,
          "type": "array"
        },
        "explanation": {
          "default": "",
          "description": "Why it changed",
          "type": "string"
        }
      },
      "required": [
        "steps"
      ],
      "type": "object"
    }
  }
}
"""
)
