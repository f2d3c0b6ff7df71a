"""Prompts for workflow induction (AWM): the instruction and one worked example per action style."""

INDUCTION_INSTRUCTION = """\
<role>You read solved web tasks and write down the reusable routines hidden in them.</role>

<input>Each task below has a query and the exact actions that solved it, one per line.</input>

<what_to_write>
Find the runs of actions that recur across tasks (or would recur for similar tasks) and write
each run as a workflow:
- a first line `## snake_case_name`;
- a second line of one sentence saying on which page it starts and what it achieves;
- then one action per line, copied in the same action format, with every task-specific value
  (names, dates, numbers, typed text, chosen options) replaced by a `{short-placeholder}`.
Rules: every workflow has two or more actions; workflows must not overlap or repeat each other;
write only workflows for the website of the tasks below, never the ones from the example.
</what_to_write>"""

# An invented website so that nothing from it can be mistaken for a real site's workflow;
# `WORKED_EXAMPLE_WORKFLOW_NAMES` lets the filter drop any of these that leak into the output.
WORKED_EXAMPLE = """\
<example>
Website: Reference, Libraries, northvale-library
## Query 1: Put a hold on the novel "The Glass Orchard" and pick it up at the Riverside branch.
Actions:
[searchbox]  Search the catalog -> TYPE: The Glass Orchard
[button]  Go -> CLICK
[link]  The Glass Orchard (Book, 2021) -> CLICK
[button]  Place Hold -> CLICK
[combobox]  Pickup location -> SELECT: Riverside Branch
[button]  Confirm Hold -> CLICK

## Query 2: Renew every item on my card that is due this week.
Actions:
[link]  My Account -> CLICK
[link]  Checked Out -> CLICK
[checkbox]  Select all items -> CLICK
[button]  Renew Selected -> CLICK

## Query 3: Reserve the audiobook "Harbor Lights" for pickup at Main Library.
Actions:
[searchbox]  Search the catalog -> TYPE: Harbor Lights
[button]  Go -> CLICK
[link]  Harbor Lights (Audiobook CD, 2019) -> CLICK
[button]  Place Hold -> CLICK
[combobox]  Pickup location -> SELECT: Main Library
[button]  Confirm Hold -> CLICK

Workflows:
## search_catalog_item
On any northvale-library page, this workflow finds a title in the catalog and opens its record.
[searchbox]  Search the catalog -> TYPE: {title}
[button]  Go -> CLICK
[link]  {matching-record} -> CLICK

## place_hold_for_pickup
On a catalog record page, this workflow places a hold and picks the branch to collect it from.
[button]  Place Hold -> CLICK
[combobox]  Pickup location -> SELECT: {branch-name}
[button]  Confirm Hold -> CLICK

## renew_checked_out_items
On any northvale-library page, this workflow renews the items currently checked out.
[link]  My Account -> CLICK
[link]  Checked Out -> CLICK
[checkbox]  {items-to-renew} -> CLICK
[button]  Renew Selected -> CLICK
</example>"""

WORKED_EXAMPLE_WORKFLOW_NAMES = (
    "search_catalog_item",
    "place_hold_for_pickup",
    "renew_checked_out_items",
)

# Online induction works from the agent's own runs, whose actions are tool or browser calls.
ONLINE_INSTRUCTION = """\
<role>You read the agent's own successful runs and write down the reusable routines in them.</role>

<input>Each run below has its task and, in order, the actions the agent took.</input>

<what_to_write>
Write each routine that helps with similar tasks as a workflow:
- a first line `## snake_case_name`;
- a second line of one sentence saying when to use it and what it achieves;
- then one action per line, in the same call format, e.g. `click('12')`, with task-specific
  values (typed text, search terms, answers) replaced by a `{short-placeholder}`.
Rules: every workflow has two or more actions; no two workflows overlap; never copy the example.
</what_to_write>"""

ONLINE_WORKED_EXAMPLE = """\
<example>
## Query 1: How many open issues does the project "kite-parser" have?
Actions:
goto('http://forge.example/explore')
fill('search-box', 'kite-parser')
click('result-0')
click('tab-issues')
send_msg_to_user('14')

Workflows:
## open_project_page
On the forge explore page, this workflow searches for a project and opens it.
goto('http://forge.example/explore')
fill('search-box', '{project-name}')
click('{first-matching-result}')
</example>"""

ONLINE_WORKED_EXAMPLE_WORKFLOW_NAMES = ("open_project_page",)

TASKS_HEADER = "<tasks>\n{examples}\n</tasks>\n\nWorkflows:"
