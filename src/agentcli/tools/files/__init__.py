"""The file layer and the tools on it.

Safe opens, the walk and ignore rules, reading and changing text files (inside the workspace of tools/core), then
read_file, list_files, search_text, edit_file and write_file on top.
"""
