"""Shared test setup: Qt runs offscreen, settings (recent files) go to a throwaway folder, and
torch computes on one kernel thread, all before anything imports Qt or torch. The slow tests
are marked here, in one list.

`pytest` runs the whole suite (as CI does); `pytest -m "not slow"` leaves out the tests listed
below, for the loop after every change; either runs a worker per core (`-n auto`, pytest-xdist).
"""

import atexit
import contextlib
import gettext
import os
import shutil
import sys
import tempfile
import warnings

import pytest

from attn_explorer.text import i18n

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="attn-explorer-tests-")
atexit.register(shutil.rmtree, os.environ["XDG_CONFIG_HOME"], ignore_errors=True)
# Kept traces (ui/restore.py) neither read nor written: every window computes what it shows.
# The tests of restoring turn them on, with a cache folder of their own.
os.environ["XDG_CACHE_HOME"] = os.path.join(os.environ["XDG_CONFIG_HOME"], "cache")
os.environ["ATTN_EXPLORER_TRACE_CACHE"] = "off"
# The tests read the English words unless they choose another language, whatever this
# machine's own language is.
for _name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_name, None)
os.environ["LANG"] = "C.UTF-8"
# The suite's traces are tiny: a second kernel thread only spins, against the window's own
# thread or, with `-n`, another worker. Read by torch's OpenMP when torch loads.
os.environ.setdefault("OMP_NUM_THREADS", "1")

# The slow tests, by node id: a prefix names a whole file, or a test with all its parameters.
# Measured: every test that took a second or more (setup and call) in a full run on two cores
# (`pytest -n 2 --durations=0`), a whole file where all of its tests did. Most start a Python
# process that imports torch or Qt, draw all ten stages, sweep many settings, or build a
# window per case. An entry that matches no test when the whole suite runs is warned about.
SLOW = (
    "tests/cli/test_arguments.py::test_random_tokens_alone_start_from_the_default_example",
    "tests/cli/test_export.py::test_a_followed_query_the_tokens_lack_is_drawn_as_the_last_as_the_window_does",
    "tests/cli/test_export.py::test_all_steps_as_a_pdf_from_a_preset_named_without_its_extension",
    "tests/cli/test_export.py::test_stages_exported_again_in_the_other_order_replace_the_folders_stage_files",
    "tests/cli/test_export.py::test_stages_named_like_a_file_go_to_a_new_folder_of_that_name_only",
    "tests/cli/test_export.py::test_svg_of_one_view_from_a_session_without_a_display",
    "tests/cli/test_export.py::test_the_query_help_names_the_default_the_export_uses",
    "tests/cli/test_export_stdout.py::test_a_pipe_reads_the_export_from_a_process",
    "tests/io/test_code_export.py::test_any_token_text_gives_valid_python",
    "tests/io/test_code_export.py::test_a_script_run_as_a_process_prints_what_it_prints_in_process",
    "tests/io/test_data_export_memory.py::test_export_memory_stays_near_the_arrays_size",
    "tests/io/test_session.py::test_arbitrary_json_never_crashes_loading",
    "tests/io/test_session.py::test_mutated_documents_load_or_are_refused",
    "tests/io/test_session.py::test_valid_states_round_trip_exactly",
    "tests/test_imports.py",
    "tests/ui/editing/test_document.py::test_merged_moves_leave_no_command_objects_behind",
    "tests/ui/editing/test_editor_widget.py::test_delete_clears_the_selected_values_in_one_undo_step",
    "tests/ui/editing/test_whole_changes.py",
    "tests/ui/export/test_export_actions.py::test_a_size_refused_in_the_export_dialog_is_said_there",
    "tests/ui/export/test_export_actions.py::test_an_export_the_disk_cannot_hold_is_said_and_the_earlier_file_kept",
    "tests/ui/export/test_export_actions.py::test_data_and_script_are_not_written_for_settings_that_cannot_be_computed",
    "tests/ui/export/test_export_actions.py::test_export_current_view_stage_and_all_stages",
    "tests/ui/export/test_export_actions.py::test_export_data_and_script",
    "tests/ui/export/test_export_actions.py::test_exported_data_holds_both_masking_methods_at_any_size",
    # A parameter named here ([png], [spec1], [v1-]): one format or kind of that test stays in
    # the fast tier (a full disk's SVG, the 1x and 2x PNG, the array's white SVG, the array's
    # and stage's outlines, the mha matrices' worked lines); the others, 0.6-1.1 s each, not.
    "tests/ui/export/test_figure_files.py::test_a_figure_that_fails_half_way_says_why_and_leaves_the_earlier_one[pdf]",
    "tests/ui/export/test_figure_files.py::test_a_figure_that_fails_half_way_says_why_and_leaves_the_earlier_one[png]",
    "tests/ui/export/test_figure_files.py::test_a_png_at_2x_draws_the_outline_twice_as_thick_as_at_1x",
    "tests/ui/export/test_figure_files.py::test_a_size_too_small_for_the_figure_is_refused_not_cut",
    "tests/ui/export/test_figure_files.py::test_all_stages_as_a_folder",
    "tests/ui/export/test_figure_files.py::test_pdf_of_all_stages_has_one_page_per_stage",
    "tests/ui/export/test_figure_files.py::test_png_has_the_requested_pixel_size_and_resolution[4]",
    "tests/ui/export/test_figure_files.py::test_stages_refused_half_way_leave_an_earlier_export_whole",
    "tests/ui/export/test_figure_files.py::test_stages_that_fail_half_way_leave_the_earlier_pdf",
    "tests/ui/export/test_figure_files.py::test_svg_outlines_are_drawn_the_same_by_renderers_that_ignore_vector_effect[spec1]",
    "tests/ui/export/test_figure_files.py::test_the_size_advised_for_all_stages_fits_every_stage",
    "tests/ui/export/test_figure_language.py::test_a_pseudo_translated_figure_of_every_kind_leaves_no_english",
    "tests/ui/export/test_figures.py::test_the_command_line_refuses_a_head_or_query_exactly_where_the_figure_ignores_it",
    "tests/ui/export/test_figures.py::test_the_seven_matrices_carry_the_followed_querys_lines[v1-",
    "tests/ui/export/test_figures.py::test_the_seven_matrices_carry_the_followed_querys_lines[dropout-",
    "tests/ui/export/test_file_actions.py::test_a_refused_session_naming_a_head_the_picture_lacks_keeps_the_boxes_working",
    "tests/ui/export/test_file_actions.py::test_a_session_following_a_token_the_open_window_lacks",
    "tests/ui/export/test_file_actions.py::test_a_session_naming_a_head_it_does_not_have_shows_the_last_one",
    "tests/ui/export/test_file_actions.py::test_new_starts_over_with_the_default_view",
    "tests/ui/export/test_file_actions.py::test_save_and_open_round_trip",
    "tests/ui/export/test_worksheet_pdf.py::test_each_exercises_key_is_the_computation_of_the_seed_it_prints",
    "tests/ui/heatmap/test_cell_text.py::test_cell_texts_write_every_value_as_num_does",
    "tests/ui/heatmap/test_cell_text.py::test_the_weights_scale_percentile_is_numpys",
    "tests/ui/matrices/test_closed_windows.py",
    "tests/ui/matrices/test_paint_pass.py::test_a_change_outside_a_pass_after_one_leaves_no_stale_pixels",
    "tests/ui/matrices/test_paint_pass.py::test_a_re_layout_left_pending_by_a_pass_is_repainted_when_the_views_resume",
    "tests/ui/matrices/test_paint_pass.py::test_a_slider_move_repaints_every_changed_view_in_one_pass",
    "tests/ui/matrices/test_paint_pass.py::test_the_screen_matches_a_fresh_render_after_moves_that_re_lay_out",
    "tests/ui/steps/test_stage_layout.py::test_cross_projections_of_one_shape_get_one_width",
    "tests/ui/steps/test_stage_layout.py::test_method_1_draws_softmax_and_its_zeroing_on_one_colour_bar",
    "tests/ui/steps/test_stage_layout.py::test_neighbours_keep_their_labels_and_bars_where_these_differ",
    "tests/ui/steps/test_stage_layout.py::test_neighbours_of_one_shape_and_labels_write_their_row_labels_once",
    "tests/ui/steps/test_stage_layout.py::test_rows_left_unlabelled_sit_beside_the_labelled_ones",
    "tests/ui/steps/test_stage_layout.py::test_softmax_input_and_output_get_equal_widths_at_1024",
    "tests/ui/steps/test_stage_layout.py::test_the_two_masking_methods_get_equal_widths_at_1024",
    "tests/ui/steps/test_stepper.py::test_a_focused_button_or_slider_keeps_space_and_the_arrows",
    "tests/ui/steps/test_stepper.py::test_a_focused_head_box_keeps_space_and_the_arrows",
    "tests/ui/steps/test_stepper_followed.py::test_a_masked_key_reads_minus_infinity_not_a_score_of_0",
    "tests/ui/steps/test_stepper_room.py::test_a_projector_at_200_percent_keeps_the_stage_matrices_legible",
    "tests/ui/steps/test_stepper_room.py::test_a_short_window_gives_the_matrices_room_first",
    "tests/ui/steps/test_stepper_room.py::test_a_small_window_keeps_the_stage_matrices_not_the_panel",
    "tests/ui/steps/test_stepper_followed.py::test_a_step_that_changes_one_quantity_draws_before_and_after_on_one_scale",
    "tests/ui/steps/test_stepper_followed.py::test_a_weight_doubled_by_dropout_stays_on_the_colour_bar",
    "tests/ui/steps/test_stepper.py::test_arrow_keys_and_buttons_navigate",
    "tests/ui/steps/test_stepper_followed.py::test_clicking_a_row_follows_it_across_stages_and_changes",
    "tests/ui/steps/test_stepper.py::test_every_stage_shows_the_trace_arrays",
    "tests/ui/steps/test_stepper_followed.py::test_followed_token_defaults_to_the_second_and_is_written_out",
    "tests/ui/steps/test_stepper_room.py::test_in_a_short_window_the_lesson_gives_way_to_the_matrices_and_the_panel",
    "tests/ui/steps/test_stepper_panels.py::test_mask_methods_side_by_side",
    "tests/ui/steps/test_stepper_panels.py::test_method_1_broken_on_every_row_is_said_without_a_numpy_warning",
    "tests/ui/steps/test_stepper.py::test_play_walks_through_the_stages_that_apply_and_stops",
    "tests/ui/steps/test_stepper.py::test_revisiting_stages_reuses_the_plots",
    "tests/ui/steps/test_stepper_room.py::test_sixteen_heads_concatenated_say_which_are_drawn_and_get_the_width",
    "tests/ui/steps/test_stepper.py::test_skipped_stages_are_marked_with_their_reason",
    "tests/ui/steps/test_stepper_panels.py::test_softmax_panel_numbers",
    "tests/ui/steps/test_stepper_followed.py::test_the_context_stage_names_the_weights_it_reads_one_way",
    "tests/ui/steps/test_stepper_followed.py::test_the_followed_projection_writes_what_was_computed",
    "tests/ui/steps/test_stepper_followed.py::test_the_followed_query_writes_omega_where_nothing_was_scaled_or_masked",
    "tests/ui/steps/test_stepper_followed.py::test_the_keep_line_puts_keys_hidden_by_the_mask_in_parentheses",
    "tests/ui/steps/test_stepper_followed.py::test_the_scale_stage_without_scaling_says_nothing_was_scaled",
    "tests/ui/steps/test_stepper_panels.py::test_why_scaling_demo_is_one_undo_step",
    "tests/ui/test_fit_small_screens.py",
    "tests/ui/test_hostile_controls.py::test_a_slider_box_refuses_a_number_out_of_range_in_words",
    "tests/ui/test_hostile_controls.py::test_a_whole_number_out_of_range_is_refused_not_cut_short",
    "tests/ui/test_hostile_controls.py::test_every_combination_of_controls_computes_or_is_explained",
    "tests/ui/test_hostile_pastes.py::test_a_decimal_comma_is_still_read_as_one",
    "tests/ui/test_hostile_pastes.py::test_a_long_paste_is_computed",
    "tests/ui/test_hostile_pastes.py::test_adding_a_token_to_a_full_table_says_why_nothing_happened",
    "tests/ui/test_hostile_tokens.py::test_a_token_name_with_a_line_break_stays_on_one_line_of_an_explanation",
    "tests/ui/test_hostile_tokens.py::test_any_token_name_is_computed_and_labelled",
    "tests/ui/test_hostile_tokens.py::test_the_softmax_bars_label_a_key_as_the_matrices_do",
    "tests/ui/test_long_session.py",
    "tests/ui/test_mask_first.py::test_the_control_is_greyed_where_the_order_is_no_choice",
    "tests/ui/test_mask_first.py::test_the_mask_stage_shows_the_tutorials_masked_matrix",
    "tests/ui/test_mask_first.py::test_the_scale_stage_divides_the_masked_scores",
    "tests/ui/test_mask_method_1.py::test_method_1_with_padding_dropout_and_two_heads",
    "tests/ui/test_mask_method_1.py::test_the_mask_stage_of_method_1_leaves_the_scores_unmasked",
    "tests/ui/test_mask_method_1.py::test_the_softmax_bars_of_method_1_feed_every_score",
    "tests/ui/test_mask_method_1.py::test_the_softmax_stage_of_method_1_shows_its_three_steps",
    "tests/ui/test_mask_method_1.py::test_the_softmax_stage_of_method_2_is_as_it_was",
    "tests/ui/test_projector_layout.py::test_a_box_too_narrow_for_its_item_cuts_it_at_a_word",
    "tests/ui/test_projector_layout.py::test_the_mask_bar_is_written_short_only_where_its_columns_need_it",
    "tests/ui/test_projector_layout.py::test_values_left_out_for_want_of_room_are_said_to_be",
    "tests/ui/steps/test_words.py",
    "tests/ui/test_menus_translated.py",
    "tests/ui/test_lessons_dialog.py",
    "tests/ui/test_translation_sweep.py",
    "tests/ui/test_screenshot_cli.py::test_a_screenshot_of_a_session_changed_by_set_exits_without_asking",
    "tests/ui/test_screenshot_cli.py::test_a_screenshot_the_disk_cannot_hold_says_why_and_keeps_the_earlier_one",
    "tests/ui/test_screenshot_cli.py::test_a_step_through_screenshot_exits_cleanly",
    "tests/ui/test_screenshot_cli.py::test_random_tokens_on_a_cross_session_say_that_cross_attention_goes_off",
    "tests/ui/test_screenshot_cli.py::test_a_screenshot_of_a_preset_has_its_size_and_prints_no_offscreen_notices",
    "tests/ui/test_screenshot_cli.py::test_screenshot_with_many_tokens_and_heads",
    "tests/ui/test_shortcuts_dialog.py::test_on_a_screen_too_narrow_for_both_columns_the_keys_stay_whole",
    "tests/ui/test_shortcuts_dialog.py::test_the_list_follows_a_larger_text_size",
    "tests/ui/test_restore.py::test_a_kept_picture_is_drawn_before_the_engine_computes_then_swapped_unchanged",
    "tests/ui/test_restore.py::test_the_window_shows_the_restored_picture_before_torch_is_imported",
    "tests/ui/test_restore.py::test_a_window_never_shown_starts_its_engine_after_a_second",
    "tests/ui/test_restore.py::test_a_shown_window_starts_its_engine_at_its_first_paint_however_late",
    # Each starts the window as a process three times (a picture kept, the window's, the frame).
    "tests/ui/test_start_frame.py::test_a_maximized_start_shows_the_whole_window_first_and_then_the_same_pixels",
    "tests/ui/test_start_frame.py::test_a_plain_start_shows_the_whole_window_first_and_then_the_same_pixels",
    "tests/ui/test_startup.py",
    "tests/ui/test_text_size.py::test_a_new_text_size_keeps_the_summary_under_its_notice",
    "tests/ui/test_text_size.py::test_a_remembered_size_gives_the_status_labels_room_from_the_start",
    "tests/ui/test_text_size.py::test_a_title_too_wide_for_its_matrix_keeps_its_beginning",
    "tests/ui/test_text_size.py::test_an_exported_stage_is_laid_out_the_same_at_any_text_size",
    "tests/ui/test_text_size.py::test_at_150_percent_no_matrix_writes_its_values_smaller_than_at_100",
    "tests/ui/test_text_size.py::test_exported_figures_keep_their_own_size",
    "tests/ui/test_text_size.py::test_labels_are_measured_in_the_new_size",
    "tests/ui/test_text_size.py::test_the_size_stops_at_its_smallest_and_largest_steps",
    "tests/ui/test_text_size.py::test_the_step_through_follows_the_size",
    "tests/ui/test_window_engine.py::test_each_checkbox_reaches_the_engine",
    "tests/ui/test_window_engine.py::test_each_slider_reaches_the_engine",
    "tests/ui/test_window_examples.py::test_a_greyed_setting_does_not_leave_the_example",
    "tests/ui/test_window_examples.py::test_the_example_box_loads_only_what_is_chosen_in_its_list",
    "tests/ui/test_window_examples.py::test_the_loaded_example_is_named_and_its_lesson_read_whole",
    "tests/ui/test_window_layout.py::test_f9_gives_the_matrices_the_whole_width_to_present",
    "tests/ui/test_window_layout.py::test_the_window_fits_a_1024_pixel_projector",
    "tests/ui/test_window_matrices.py::test_a_big_table_settles_after_an_edit",
    "tests/ui/test_window_matrices.py::test_a_long_title_is_written_smaller_before_it_is_cut",
    "tests/ui/test_window_matrices.py::test_all_heads_grid_reuses_its_plots_as_the_head_count_changes",
    "tests/ui/test_window_matrices.py::test_head_selector_and_grid",
    "tests/ui/test_window_matrices.py::test_labels_thin_out_for_long_sequences",
    "tests/ui/test_window_matrices.py::test_matrices_read_left_to_right_in_a_right_to_left_window",
    "tests/ui/test_window_matrices.py::test_slanted_labels_are_inside_the_axis_area_that_is_repainted",
    "tests/ui/test_window_matrices.py::test_the_followed_query_stays_on_its_token_when_rows_move",
    "tests/ui/test_window_matrices.py::test_undo_brings_back_the_head_that_was_chosen",
    "tests/ui/test_window_matrices.py::test_undoing_a_row_edit_keeps_a_query_chosen_since",
    "tests/ui/test_window_status_bar.py::test_a_long_notice_takes_the_shapes_room_and_a_longer_one_is_cut_in_the_middle",
    "tests/ui/test_window_status_bar.py::test_the_shapes_show_whole_or_elided_never_cut_at_their_start",
    # Over a second each (setup and call) in the fast tier at 23:31, two workers, quiet.
    "tests/cli/test_model_export.py::test_a_heads_weights_as_npz_equal_the_models",
    "tests/cli/test_worksheet_cli.py::test_vietnamese",
    "tests/engine/test_long_sequences.py::test_a_row_that_sees_nothing_stays_nan_by_blocks",
    "tests/lens/test_lab.py::test_the_rows_of_a_dropped_layer_or_run_are_let_go",
    "tests/ui/check/test_dialog.py::test_opened_on_a_stage_it_checks_what_the_stage_computes",
    "tests/ui/check/test_stage_marks.py::test_day_43s_verdicts_are_outlined_on_the_stage",
    "tests/ui/compare/test_compare_window.py::test_a_b_and_b_minus_a_side_by_side",
    "tests/ui/compare/test_compare_window.py::test_a_figure_of_a_b_and_b_minus_a_from_the_window",
    "tests/ui/compare/test_compare_window.py::test_the_compare_tools_are_translated_under_the_pseudo_translation",
    "tests/ui/compare/test_compare_window.py::test_the_compare_tools_in_vietnamese",
    "tests/ui/editing/test_burst.py::test_after_random_edits_every_control_shows_what_a_new_panel_shows",
    "tests/ui/export/test_file_language.py::test_the_file_menu_and_its_questions_follow_the_language",
    "tests/ui/export/test_worksheet_menu.py::test_the_menu_writes_the_worksheet_of_the_current_settings",
    "tests/ui/matrices/test_context_menu.py::test_no_english_left_under_the_pseudo_translation",
    "tests/ui/matrices/test_matrix_choices.py::test_the_all_heads_box_names_what_is_computed",
    "tests/ui/matrices/test_paint_pass.py::test_a_seed_change_repaints_the_views_and_the_status_bar_once_and_nothing_else",
    "tests/ui/matrices/test_paint_pass.py::test_a_seed_move_repaints_the_cells_and_colour_bars_not_titles_and_axes",
    "tests/ui/matrices/test_paint_pass.py::test_a_view_hidden_before_its_paint_holds_the_others_no_longer",
    "tests/ui/matrices/test_paint_pass.py::test_what_a_move_leaves_alone_is_painted_from_caches_on_screen_not_in_figures",
    "tests/ui/steps/test_mask_projector.py::test_at_1366_the_row_writes_its_values_and_the_panel_stays",
    "tests/ui/steps/test_stage_layout.py::test_an_exported_figure_has_a_white_margin_all_round[mha-spec2-size2]",
    "tests/ui/steps/test_stage_projector_200.py::test_the_default_example_writes_four_decimals[projections]",
    "tests/ui/steps/test_stage_projector_200.py::test_the_mask_gives_way_at_its_stage_and_says_so",
    "tests/ui/steps/test_stage_projector_200.py::test_what_gave_way_is_said",
    "tests/ui/steps/test_stepper_room.py::test_a_panel_shown_at_a_larger_text_size_leaves_the_window_as_narrow_as_before",
    "tests/ui/test_engine_thread.py::test_a_burst_of_dropped_traces_trims_once_when_it_pauses",
    "tests/ui/test_language_switch.py::test_switching_keeps_the_document_undo_history_query_stage_and_file",
    "tests/ui/test_projector_layout.py::test_at_150_percent_q_k_v_give_way_and_are_said_to_have",
    "tests/ui/test_start_picture.py::test_a_picture_of_other_settings_is_not_shown[text",
    "tests/ui/test_start_picture.py::test_the_saved_picture_is_drawn_first_and_the_views_take_its_place_with_the_same_pixels[size1]",
)


# The tests of a real model (the lens) run on one worker (`--dist loadgroup`, pyproject.toml):
# a worker that runs one imports transformers and builds the tiny models (tests/lens/conftest.py),
# some 5 s of CPU that the other worker then spends on other tests.
LENS = ("tests/lens/", "tests/ui/lens/", "tests/cli/test_model_")


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects, and before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    unmatched = set(SLOW)
    for item in items:
        if item.nodeid.startswith(LENS):
            item.add_marker(pytest.mark.xdist_group("lens"))
        entries = {entry for entry in SLOW if item.nodeid.startswith(entry)}
        unmatched -= entries
        if entries:
            item.add_marker(pytest.mark.slow)
    if unmatched and config.args_source == pytest.Config.ArgsSource.TESTPATHS:
        # A test was renamed or moved: its entry would silently leave it in the fast tier.
        warnings.warn(
            pytest.PytestWarning(f"tests/conftest.py SLOW names no test: {sorted(unmatched)}"),
            stacklevel=1,
        )


@pytest.fixture
def new_document(qapp):
    """`new_document(state)`: a document for this test alone (the default state without
    one), deleted whole at the test's end.

    Its undo steps hold the document, so once let go only the garbage collector frees it,
    at any later moment, tearing its wrappers down in no set order: a test worker died so
    in QUndoStack::clear() (a core dump, 2026-11-28). A window's document goes with its
    window; these go here, while everything they hold is whole.
    """
    import shiboken6

    from attn_explorer.model.state import default_state
    from attn_explorer.ui.editing.document import Document

    made = []

    def make(state=None):
        made.append(Document(state if state is not None else default_state()))
        return made[-1]

    yield make
    for document in made:
        if shiboken6.isValid(document):
            document.undo_stack.clear()
            shiboken6.delete(document)


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


class PseudoTranslations(gettext.NullTranslations):
    """Every marked string as ⟪string⟫: a text a user sees without the brackets escaped
    translation."""

    def gettext(self, message: str) -> str:
        return f"⟪{message}⟫"

    def pgettext(self, context: str, message: str) -> str:
        return f"⟪{message}⟫"

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return f"⟪{singular if n == 1 else plural}⟫"


@pytest.fixture
def pseudo():
    """Speak the pseudo-translation for one test, then English again."""
    i18n.use_translations(PseudoTranslations(), "pseudo")
    yield
    i18n.set_language("en")


@pytest.fixture
def vietnamese():
    """Speak Vietnamese for one test, then English again."""
    i18n.set_language("vi")
    yield
    i18n.set_language("en")


@pytest.fixture(autouse=True)
def qt_words_in_our_language():
    """After every test, Qt's own words (key names in the shortcuts list, "Cancel") are in the
    language our words are in: a test that leaves Qt's translator of another language
    installed fails here, not some later test on the same worker that lists a key."""
    yield
    if "PySide6.QtCore" not in sys.modules:
        return
    from PySide6.QtCore import QCoreApplication

    if QCoreApplication.instance() is not None and i18n.language() == "en":
        right = QCoreApplication.translate("QShortcut", "Right")
        assert right == "Right", f"Qt's own words left in another language ({right!r})"
