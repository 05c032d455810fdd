"""Shared test setup: Qt runs offscreen, settings (recent files) go to a throwaway folder, and
torch computes on one kernel thread, all before anything imports Qt or torch. The slow tests
are marked here, in one list.

`pytest` runs the whole suite (as CI does); `pytest -m "not slow"` leaves out the tests listed
below, for the loop after every change. `-n auto` spreads either over the cores (pytest-xdist).
"""

import contextlib
import os
import tempfile
import warnings

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="attn-explorer-tests-")
# The suite's traces are tiny: a second kernel thread only spins, against the window's own
# thread or, with `-n`, another worker. Read by torch's OpenMP when torch loads.
os.environ.setdefault("OMP_NUM_THREADS", "1")

# Tests that take seconds each, by node id: a prefix names a whole file, or a test with all
# its parameters. Chosen from `--durations` of the files they are in: most start a Python
# process that imports torch or Qt, draw all ten stages, or open a window per case of a
# long sweep. An entry that matches no test when the whole suite runs is warned about.
SLOW = (
    # The window's command line: each test opens a window in a process of its own.
    "tests/ui/test_screenshot_cli.py",
    # 1,000 changes, and two sessions of 400 random edits.
    "tests/ui/test_long_session.py",
    # Every module imported in a fresh process; the window built and shown in one.
    "tests/test_imports.py",
    "tests/ui/test_startup.py",
    # Hostile input: 125 cases, a window each; every combination of the controls.
    "tests/ui/test_hostile_input.py",
    # `attn-explorer export` run as a process, or writing all ten stages.
    "tests/cli/test_export.py::test_svg_of_one_view_from_a_session_without_a_display",
    "tests/cli/test_export.py::test_the_matrices_of_a_session_show_the_scores_and_weights",
    "tests/cli/test_export.py::test_all_steps_as_a_pdf_from_a_preset",
    "tests/cli/test_export.py::test_png_at_2x_with_size",
    "tests/cli/test_export.py::test_data_and_script",
    "tests/cli/test_export.py::test_bad_input_fails_in_one_line",
    "tests/cli/test_export.py::test_corrupt_session_fails_cleanly",
    "tests/cli/test_export.py::test_exported_arrays_are_bit_for_bit_those_the_window_computes",
    "tests/cli/test_export.py::test_cross_attention_without_a_second_sequence_uses_the_queries",
    "tests/cli/test_export.py::test_a_folder_format_named_like_a_file_writes_the_folder",
    "tests/cli/test_export.py::test_random_tokens_alone_start_from_the_default_example",
    "tests/cli/test_export.py::test_a_figure_name_that_is_not_utf8_is_refused",
    "tests/cli/test_export.py::test_a_file_named_without_its_formats_extension_gets_it",
    "tests/cli/test_export.py::test_stages_named_like_a_file_go_to_the_folder_of_that_name",
    "tests/cli/test_export.py::test_an_export_the_disk_cannot_hold_fails_and_keeps_the_earlier",
    "tests/cli/test_export.py::test_stages_exported_again_in_the_other_order_replace",
    "tests/cli/test_export.py::test_stages_to_a_new_folder_make_that_folder_only",
    "tests/cli/test_export_stdout.py::test_a_pipe_reads_the_export_from_a_process",
    # Figures of all ten stages, or of every stage at several sizes.
    "tests/ui/export/test_figures.py::test_the_size_advised_for_all_stages_fits_every_stage",
    "tests/ui/export/test_figures.py::test_a_size_too_small_for_the_figure_is_refused_not_cut",
    "tests/ui/export/test_figures.py::test_stages_refused_half_way_leave_an_earlier_export",
    "tests/ui/export/test_figures.py::test_pdf_of_all_stages_has_one_page_per_stage",
    "tests/ui/export/test_figures.py::test_all_stages_as_a_folder",
    "tests/ui/export/test_figures.py::test_stages_that_fail_half_way_leave_the_earlier_pdf",
    "tests/ui/export/test_figures.py::test_the_command_line_refuses_a_head_or_query_exactly",
    "tests/ui/export/test_file_actions.py::test_export_data_and_script",
    "tests/ui/export/test_file_actions.py::test_export_current_view_stage_and_all_stages",
    "tests/ui/export/test_file_actions.py::test_a_size_refused_in_the_export_dialog_is_said",
    "tests/ui/export/test_file_actions.py::test_a_session_naming_a_head_it_does_not_have",
    # Every stage of every example drawn in the window, or at several window sizes.
    "tests/ui/steps/test_stepper.py::test_every_stage_shows_the_trace_arrays",
    "tests/ui/steps/test_stepper.py::test_revisiting_stages_reuses_the_plots",
    "tests/ui/test_fit_small_screens.py::test_the_window_fits_a_1024_pixel_projector_at_a_large",
    "tests/ui/matrices/test_matrix_choices.py::test_the_score_box_names_the_scores_this",
    "tests/ui/matrices/test_paint_pass.py::test_the_screen_matches_a_fresh_render_after_moves",
    "tests/ui/test_live_window.py::test_the_first_window_fits_the_screen_and_later_ones_open",
)

# Fixtures that start processes: every test that uses one is slow. The generated PyTorch
# scripts run once each (29 processes importing torch) for the whole module.
SLOW_FIXTURES = ("printouts", "narrow_printouts")


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects, and before xdist renames groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    unmatched = set(SLOW)
    for item in items:
        entries = {entry for entry in SLOW if item.nodeid.startswith(entry)}
        unmatched -= entries
        fixtures = [name for name in SLOW_FIXTURES if name in item.fixturenames]
        if entries or fixtures:
            item.add_marker(pytest.mark.slow)
        if fixtures:
            # A module-scoped fixture runs once in every worker that gets one of its tests:
            # `--dist loadgroup` keeps its tests on one worker, so the scripts run once.
            item.add_marker(pytest.mark.xdist_group(fixtures[0]))
    if unmatched and config.args_source == pytest.Config.ArgsSource.TESTPATHS:
        # A test was renamed or moved: its entry would silently leave it in the fast tier.
        warnings.warn(
            pytest.PytestWarning(f"tests/conftest.py SLOW names no test: {sorted(unmatched)}"),
            stacklevel=1,
        )


@pytest.fixture
def disk_full_after():
    """`with disk_full_after(n):` every write past byte n of a file fails with "File too
    large" (EFBIG), as a full disk fails a write half-way; Python ignores the SIGXFSZ."""
    resource = pytest.importorskip("resource")

    @contextlib.contextmanager
    def limit(nbytes: int):
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, hard))
        try:
            yield
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))

    return limit
