"""Reading and writing what the stages exchange: Parquet stores checked against ``revmine.schema``, users'
text files, candidate rows, multi-file outputs replaced whole, the one-writer lock and the filter report.

Part of the neutral layer: any stage may import it; it imports no stage.
"""
