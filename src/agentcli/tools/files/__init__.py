"""The workspace's file layer and the tools on it.

Containment, safe opens, the walk and ignore rules, then read_file, list_files and search_text on top.
"""
