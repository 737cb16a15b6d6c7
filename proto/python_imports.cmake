# protoc --python_out writes imports of other generated modules as top-level imports
# ("import soc_config_pb2"); inside the asc._proto package (DIR) they must be relative.
file(GLOB files ${DIR}/*_pb2.py ${DIR}/*_pb2_grpc.py)
foreach(f ${files})
  file(READ ${f} text)
  string(REGEX REPLACE "\nimport ([a-z_]+_pb2) as" "\nfrom . import \\1 as" text "${text}")
  file(WRITE ${f} "${text}")
endforeach()
