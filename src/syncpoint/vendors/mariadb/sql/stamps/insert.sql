INSERT INTO ${stin} (leader_cap_loc, leader_cap_begin, leader_cap_begin_int,
                     trailer_cap_loc, trailer_cap_begin, trailer_cap_begin_int)
VALUES (%s, %s, %s, %s, %s, %s)
